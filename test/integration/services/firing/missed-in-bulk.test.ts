import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import type { TimerDraft } from '../../../../src/domain/timer.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { Metrics } from '../../../../src/observability/metrics.js';
import type { RunToExecute } from '../../../../src/services/firing/run-execution.js';
import { MissedInBulk } from '../../../../src/services/firing/settle/missed-in-bulk.js';
import { UncalledRuns } from '../../../../src/services/firing/settle/uncalled-runs.js';
import { TimerCache } from '../../../../src/services/firing/timer-cache.js';
import { openDatabase } from '../../../../src/storage/db/client.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { createTestStores, deleteKeys, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/**
 * A job's runs past saving, over real MySQL rows and claim records: settled missed
 * together before the executor sees the job, each claim finished so any other copy is
 * dropped; everything else is left to the executor.
 */
let stores: TestStores;
let tasks: TaskRepository;
let timers: TimerRepository;
let claims: RunClaims;
let missed: MissedInBulk;
let metrics: Metrics;
const T0 = Date.parse('2030-06-01T12:00:00Z');
const LEASE = 10_000;

beforeAll(async () => {
  stores = await createTestStores('missed-in-bulk');
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
  timers = new TimerRepository(stores.database.db);
  claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => T0 });
});
beforeEach(async () => {
  await stores.database.pool.query('DELETE FROM tasks');
  await stores.database.pool.query('DELETE FROM timers');
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`, `{${stores.name}}:*`]);
  metrics = new Metrics();
  const logger = createLogger('silent');
  missed = new MissedInBulk({
    cache: new TimerCache(
      (ids) => timers.findByIds(ids),
      60_000,
      () => T0,
    ),
    uncalled: new UncalledRuns({ tasks, claims, owner: 'bulk', metrics, logger }),
    metrics,
    now: () => T0,
  });
});
afterAll(async () => {
  await stores.cleanup();
});

/** A pending scheduled run due `agoMs` before T0, of a new every-second timer. */
async function lateRun(agoMs: number, overrides: Partial<TimerDraft> = {}): Promise<RunToExecute> {
  const timer = await timers.insert(
    testDraft({
      app: 'bulk',
      name: `t${Math.random()}`,
      misfirePolicy: 'skip',
      misfireThresholdMs: 5000,
      ...overrides,
    }),
  );
  const runAt = T0 - agoMs;
  await tasks.insertRuns([{ timerId: timer.id, app: 'bulk', runAt, version: 1 }]);
  return { timerId: timer.id, runAt, version: 1, slice: 'test' };
}

async function statusOf(run: RunToExecute): Promise<string | undefined> {
  const [rows] = await stores.database.pool.query(
    'SELECT status FROM tasks WHERE timer_id = ? AND run_at = ?',
    [run.timerId, new Date(run.runAt)],
  );
  return (rows as Array<{ status: string }>)[0]?.status;
}

const refOf = (run: RunToExecute) => ({ key: taskKey(run.timerId, run.runAt), runAt: run.runAt });

describe("a job's runs past their misfire threshold", () => {
  it('are settled missed together, and another copy finds them finished at its claim', async () => {
    const a = await lateRun(40_000);
    const b = await lateRun(50_000);
    const taken = await missed.take([a, b]);
    expect([...taken.entries()]).toEqual([
      [0, { verdict: 'missed', attempt: 0 }],
      [1, { verdict: 'missed', attempt: 0 }],
    ]);
    expect([await statusOf(a), await statusOf(b)]).toEqual(['missed', 'missed']);
    expect(await claims.claim(refOf(a), 'executor', LEASE)).toMatchObject({
      outcome: 'done',
      status: 'missed',
    });
  });

  it('are counted missed even when MySQL refuses their write: their claims say how they ended', async () => {
    const away = openDatabase(stores.config.mysqlUrl);
    await away.close();
    const refused = new MissedInBulk({
      cache: new TimerCache(
        (ids) => timers.findByIds(ids),
        60_000,
        () => T0,
      ),
      uncalled: new UncalledRuns({
        tasks: new TaskRepository(away.db, away.pool),
        claims,
        owner: 'bulk',
        metrics,
        logger: createLogger('silent'),
      }),
      metrics,
      now: () => T0,
    });
    const a = await lateRun(40_000);
    const b = await lateRun(50_000);
    await expect(refused.take([a, b])).rejects.toThrow();
    const counted = (await metrics.runs.get()).values.find((v) => v.labels.outcome === 'missed');
    expect(counted?.value).toBe(2);
    // Left for the late sweep to write (late-sweep.test.ts), as the claims say.
    expect([await statusOf(a), await statusOf(b)]).toEqual(['pending', 'pending']);
    expect(await claims.claim(refOf(a), 'executor', LEASE)).toMatchObject({
      outcome: 'done',
      status: 'missed',
    });
  });

  it('leave a run another executor holds to it: this copy goes no further', async () => {
    const run = await lateRun(40_000);
    await claims.claim(refOf(run), 'executor', LEASE);
    expect(await missed.take([run])).toEqual(new Map([[0, { verdict: 'duplicate' }]]));
    expect(await statusOf(run)).toBe('pending');
  });

  it('leave to the executor runs it may still call, a continuation, a user’s run now, and a fire_all timer', async () => {
    const recent = await lateRun(2000);
    const withinThreshold = await lateRun(40_000, { misfireThresholdMs: 60_000 });
    const continuation = { ...(await lateRun(40_000)), afterAttempt: 1 };
    const manual = { ...(await lateRun(40_000)), trigger: 'manual' as const };
    const fireAll = await lateRun(40_000, { misfirePolicy: 'fire_all' });
    expect((await missed.take([recent, withinThreshold, continuation, manual, fireAll])).size).toBe(0);
    for (const run of [recent, withinThreshold, continuation, manual, fireAll])
      expect(await statusOf(run)).toBe('pending');
  });

  it('leave a disabled timer’s run and a final run to the executor (skipped, or the timer completed)', async () => {
    const disabled = await lateRun(40_000, { status: 'inactive' });
    const final = await lateRun(40_000);
    await stores.database.pool.query('UPDATE timers SET final_run_at = ? WHERE id = ?', [
      new Date(final.runAt),
      final.timerId,
    ]);
    expect((await missed.take([disabled, final])).size).toBe(0);
  });
});
