import { afterAll, beforeAll, expect, it } from 'vitest';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import { RunStopper } from '../../../../src/services/planning/run-stopper.js';
import { TaskRepository } from '../../../../src/storage/db/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/** A disable's stop of the runs due from it on, over real rows and claim records. */

let stores: TestStores;
const T0 = Date.parse('2030-08-01T10:00:00Z');

beforeAll(async () => {
  stores = await createTestStores('stopper');
});
afterAll(async () => {
  await stores.cleanup();
});

it('leaves a run due from the disable on that is already claimed (or called) to its holder, and cancels the rest', async () => {
  const timers = new TimerRepository(stores.database.db);
  const tasks = new TaskRepository(stores.database.db, stores.database.pool);
  const claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => T0 });
  const timer = await timers.insert(testDraft({ app: 'stop', name: 'every-second' }));
  await stores.database.pool.query("UPDATE timers SET status = 'inactive' WHERE id = ?", [timer.id]);
  const runAts = [0, 1000, 2000, 3000].map((ms) => T0 + ms);
  await tasks.insertRuns(runAts.map((runAt) => ({ timerId: timer.id, app: 'stop', runAt, version: 1 })));
  // Due at the disable's instant, claimed and answered just before it committed.
  const called = { key: taskKey(timer.id, T0), runAt: T0 };
  await claims.claim(called, 'holder', 10_000);
  await claims.finish(called, 'holder', 1, 'succeeded');
  // Claimed ahead of its time.
  await claims.claim({ key: taskKey(timer.id, T0 + 1000), runAt: T0 + 1000 }, 'holder', 10_000);

  const stopper = new RunStopper(stores.database, claims, () => T0);
  const cancelled = await stopper.stop(timer.id, timer.version, T0);
  expect(cancelled.map((r) => r.runAt)).toEqual([T0 + 2000, T0 + 3000]);
  const states = await tasks.states(runAts.map((runAt) => ({ timerId: timer.id, runAt })));
  expect(runAts.map((runAt) => states.get(taskKey(timer.id, runAt))?.status ?? null)).toEqual([
    'pending',
    'pending',
    null,
    null,
  ]);
});
