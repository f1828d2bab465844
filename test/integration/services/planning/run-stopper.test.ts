import { afterAll, beforeAll, expect, it } from 'vitest';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import { RunStopper } from '../../../../src/services/planning/run-stopper.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
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

it('stops a batch of disables in one go: each timer’s backlog skipped and later runs cancelled, a stale version left alone', async () => {
  const timers = new TimerRepository(stores.database.db);
  const tasks = new TaskRepository(stores.database.db, stores.database.pool);
  const claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => T0 });
  const made = await Promise.all(
    ['a', 'b', 'stale'].map((name) => timers.insert(testDraft({ app: 'batch', name, maxRuns: 100 }))),
  );
  const runAts = [-2000, -1000, 1000, 2000, 90_000].map((ms) => T0 + ms);
  for (const t of made) {
    await stores.database.pool.query(
      "UPDATE timers SET status = 'inactive', version = version + 1, runs_planned = 5 WHERE id = ?",
      [t.id],
    );
    await tasks.insertRuns(runAts.map((runAt) => ({ timerId: t.id, app: 'batch', runAt, version: 1 })));
  }
  const [a, b, stale] = made.map((t) => ({ id: t.id, version: t.version + 1 }));
  // Its backlog run held by a live executor (in its call): left to it.
  await claims.claim({ key: taskKey(a!.id, T0 - 1000), runAt: T0 - 1000 }, 'holder', 10_000);

  const stopper = new RunStopper(stores.database, claims, () => T0);
  const cancelled = await stopper.stopMany([
    { timerId: a!.id, version: a!.version, disabledAt: T0 },
    { timerId: b!.id, version: b!.version, disabledAt: T0 },
    { timerId: stale!.id, version: stale!.version - 1, disabledAt: T0 },
  ]);
  expect(cancelled.map((runs) => runs.map((r) => r.runAt - T0).sort((x, y) => x - y))).toEqual([
    [1000, 2000, 90_000],
    [1000, 2000, 90_000],
    [],
  ]);
  const statuses = async (id: number) => {
    const states = await tasks.states(runAts.map((runAt) => ({ timerId: id, runAt })));
    return runAts.map((runAt) => states.get(taskKey(id, runAt))?.status ?? null);
  };
  expect(await statuses(a!.id)).toEqual(['skipped', 'pending', null, null, null]);
  expect(await statuses(b!.id)).toEqual(['skipped', 'skipped', null, null, null]);
  expect(await statuses(stale!.id)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
  const [rows] = await stores.database.pool.query('SELECT id, runs_planned FROM timers WHERE app = ?', [
    'batch',
  ]);
  const planned = new Map(
    (rows as Array<{ id: number; runs_planned: number }>).map((r) => [Number(r.id), r.runs_planned]),
  );
  expect([a, b, stale].map((t) => planned.get(t!.id))).toEqual([2, 2, 5]);
});

it('cancels a re-planned timer’s runs from the change on, but leaves those already claimed (or called) to their holders', async () => {
  const timers = new TimerRepository(stores.database.db);
  const tasks = new TaskRepository(stores.database.db, stores.database.pool);
  const claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => T0 });
  const timer = await timers.insert(testDraft({ app: 'replan', name: 'every-second' }));
  const runAts = [-1000, 0, 1000, 2000, 120_000].map((ms) => T0 + ms);
  await tasks.insertRuns(runAts.map((runAt) => ({ timerId: timer.id, app: 'replan', runAt, version: 1 })));
  // Called and answered just before the change committed, and claimed ahead of its time.
  const called = { key: taskKey(timer.id, T0), runAt: T0 };
  await claims.claim(called, 'holder', 10_000);
  await claims.finish(called, 'holder', 1, 'succeeded');
  await claims.claim({ key: taskKey(timer.id, T0 + 1000), runAt: T0 + 1000 }, 'holder', 10_000);

  const stopper = new RunStopper(stores.database, claims, () => T0);
  const cancelled = await stores.database.transaction((tx) => stopper.cancelFrom(tx, timer.id, T0));
  expect(cancelled.map((r) => r.runAt - T0).sort((x, y) => x - y)).toEqual([2000, 120_000]);
  const states = await tasks.states(runAts.map((runAt) => ({ timerId: timer.id, runAt })));
  expect(runAts.map((runAt) => states.get(taskKey(timer.id, runAt))?.status ?? null)).toEqual([
    'pending',
    'pending',
    'pending',
    null,
    null,
  ]);
});

it('leaves unlocked a timer of the batch that changed since its disable, so its next change need not wait for the batch', async () => {
  const timers = new TimerRepository(stores.database.db);
  const tasks = new TaskRepository(stores.database.db, stores.database.pool);
  const claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => T0 });
  const [still, enabled] = await Promise.all(
    ['still', 'enabled'].map((name) => timers.insert(testDraft({ app: 'locks', name }))),
  );
  await stores.database.pool.query(
    "UPDATE timers SET status = 'inactive', version = version + 1 WHERE id = ?",
    [still!.id],
  );
  await tasks.insertRuns([{ timerId: still!.id, app: 'locks', runAt: T0 + 1000, version: 1 }]);
  // Enabled again since its disable (which stopped its runs itself), and now being edited:
  // the operator's transaction holds its row.
  const editing = await stores.database.pool.getConnection();
  try {
    await editing.beginTransaction();
    await editing.query('SELECT id FROM timers WHERE id = ? FOR UPDATE', [enabled!.id]);
    const stopper = new RunStopper(stores.database, claims, () => T0);
    const cancelled = await stopper.stopMany([
      { timerId: still!.id, version: still!.version + 1, disabledAt: T0 },
      { timerId: enabled!.id, version: enabled!.version + 1, disabledAt: T0 },
    ]);
    expect(cancelled.map((runs) => runs.map((r) => r.runAt - T0))).toEqual([[1000], []]);
  } finally {
    await editing.rollback();
    editing.release();
  }
}, 20_000);
