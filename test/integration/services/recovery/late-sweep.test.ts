import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import type { TimerDraft } from '../../../../src/domain/timer.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { Metrics } from '../../../../src/observability/metrics.js';
import type { ServicePauseState } from '../../../../src/services/apps/service-pause.js';
import { LateSweep } from '../../../../src/services/recovery/late-sweep.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { createTestStores, deleteKeys, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/**
 * The late sweep over real MySQL rows and claim records, at instants the test picks:
 * past capacity, runs their misfire policy will not call any more are settled in bulk,
 * and their queued copies find them finished when an executor reaches them.
 */
let stores: TestStores;
let tasks: TaskRepository;
let timers: TimerRepository;
let claims: RunClaims;
let sweep: LateSweep;
let clock = 0;
let paused: ServicePauseState | null = null;
const T0 = Date.parse('2030-06-01T12:00:00Z');
const LEASE = 10_000;

beforeAll(async () => {
  stores = await createTestStores('late-sweep');
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
  timers = new TimerRepository(stores.database.db);
  claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => clock });
  sweep = new LateSweep(sweepDeps());
});

function sweepDeps() {
  return {
    tasks,
    timers,
    claims,
    owner: 'sweeper',
    pause: { look: async () => undefined, current: () => paused },
    metrics: new Metrics(),
    logger: createLogger('silent'),
    now: () => clock,
  };
}
beforeEach(async () => {
  clock = T0;
  paused = null;
  await stores.database.pool.query('DELETE FROM tasks');
  await stores.database.pool.query('DELETE FROM timers');
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`, `{${stores.name}}:*`]);
});
afterAll(async () => {
  await stores.cleanup();
});

/** An every-second timer, and a pending run of it due `agoMs` before T0. */
async function lateRun(agoMs: number, overrides: Partial<TimerDraft> = {}) {
  const timer = await timers.insert(
    testDraft({ app: 'sweep', name: `t${Math.random()}`, misfirePolicy: 'skip', ...overrides }),
  );
  const runAt = T0 - agoMs;
  await tasks.insertRuns([{ timerId: timer.id, app: 'sweep', runAt, version: 1 }]);
  return { timerId: timer.id, runAt, ref: { key: taskKey(timer.id, runAt), runAt } };
}

async function stateOf(run: { timerId: number; runAt: number }) {
  const [rows] = await stores.database.pool.query(
    'SELECT status, attempts, error FROM tasks WHERE timer_id = ? AND run_at = ?',
    [run.timerId, new Date(run.runAt)],
  );
  return (rows as Array<{ status: string; attempts: number; error: string | null }>)[0];
}

describe('a run still pending past its misfire threshold', () => {
  it('is recorded missed, and the copy still queued finds it finished at its claim', async () => {
    const run = await lateRun(40_000, { misfireThresholdMs: 5000 });
    expect(await sweep.run()).toMatchObject({ missed: 1, skipped: 0 });
    expect(await stateOf(run)).toMatchObject({ status: 'missed', attempts: 0 });
    expect(await claims.claim(run.ref, 'executor', LEASE)).toMatchObject({
      outcome: 'done',
      status: 'missed',
    });
  });

  it('under fire_once, is recorded missed only when the run after it is past the threshold too', async () => {
    // Every minute at :00; the run after 12:00 is due at T0 + 60 s.
    const hourly = await lateRun(61_000, { cron: '0 * * * * *', misfirePolicy: 'fire_once' });
    const everySecond = await lateRun(90_000, { misfirePolicy: 'fire_once' });
    expect(await sweep.run()).toMatchObject({ missed: 1, skipped: 0 });
    expect(await stateOf(hourly)).toMatchObject({ status: 'pending' });
    expect(await stateOf(everySecond)).toMatchObject({ status: 'missed' });
  });

  it('is left alone before it is 30 s late, whatever its threshold', async () => {
    const run = await lateRun(20_000, { misfireThresholdMs: 0 });
    expect(await sweep.run()).toMatchObject({ missed: 0, skipped: 0 });
    expect(await stateOf(run)).toMatchObject({ status: 'pending' });
  });

  it('is left alone under fire_all: it is owed a call however late', async () => {
    const run = await lateRun(10 * 60_000, { misfirePolicy: 'fire_all' });
    expect(await sweep.run()).toMatchObject({ missed: 0, skipped: 0 });
    expect(await stateOf(run)).toMatchObject({ status: 'pending' });
  });

  it('is written as its claim record says when the settler that finished it lost its write', async () => {
    // Settled in bulk (claim finished) by a process whose MySQL was away: the row stayed pending.
    const missed = await lateRun(40_000, { misfireThresholdMs: 5000 });
    const skipped = await lateRun(40_000, { misfireThresholdMs: 5000 });
    const called = await lateRun(40_000, { misfireThresholdMs: 5000 });
    for (const [run, status] of [
      [missed, 'missed'],
      [skipped, 'skipped'],
      [called, 'succeeded'],
    ] as const) {
      await claims.claim(run.ref, 'settler', LEASE);
      await claims.finish(run.ref, 'settler', 1, status);
    }
    const metrics = new Metrics();
    const report = await new LateSweep({ ...sweepDeps(), metrics }).run();
    expect(report).toMatchObject({ missed: 1, skipped: 1 });
    // Their settler counted them (and sent the notices) when it finished their claims.
    expect((await metrics.runs.get()).values.filter((v) => v.value > 0)).toEqual([]);
    expect(await stateOf(missed)).toMatchObject({ status: 'missed', attempts: 0 });
    expect(await stateOf(skipped)).toMatchObject({
      status: 'skipped',
      error: 'skipped: as its claim record says (what settled it could not write why)',
    });
    // A call was made: its outcome is the compensator's to recover, with its attempts.
    expect(await stateOf(called)).toMatchObject({ status: 'pending' });
  });

  it('is left to the executor that holds it', async () => {
    const run = await lateRun(5 * 60_000);
    await claims.claim(run.ref, 'executor', LEASE);
    expect(await sweep.run()).toMatchObject({ missed: 0, skipped: 0 });
    expect(await stateOf(run)).toMatchObject({ status: 'pending' });
  });

  it('is left to the compensator when its holder died mid-call: its next attempt is owed', async () => {
    const run = await lateRun(5 * 60_000);
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'dead', LEASE);
    await claims.markCalled(run.ref, 'dead', 1, clock + LEASE);
    clock = T0;
    expect(await sweep.run()).toMatchObject({ missed: 0, skipped: 0 });
    expect(await stateOf(run)).toMatchObject({ status: 'pending' });
    // Released, not held: the compensator's re-queued copy claims attempt 2 at once.
    expect(await claims.claim(run.ref, 'next', LEASE, 1)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });

  it('is recorded skipped with the reason when its timer was disabled, deleted, or the service paused', async () => {
    const disabled = await lateRun(40_000, { status: 'inactive', misfirePolicy: 'fire_all' });
    const deleted = await lateRun(40_000);
    await stores.database.pool.query('DELETE FROM timers WHERE id = ?', [deleted.timerId]);
    expect(await sweep.run()).toMatchObject({ missed: 0, skipped: 2 });
    expect(await stateOf(disabled)).toMatchObject({
      status: 'skipped',
      error: 'skipped: the timer is inactive',
    });
    expect(await stateOf(deleted)).toMatchObject({
      status: 'skipped',
      error: 'skipped: the timer was deleted',
    });

    // Paused: a run of an active timer is swept once past its threshold (executors skip it sooner).
    paused = { note: 'incident 42', pausedAt: T0 - 120_000, pausedBy: 'ops' };
    const held = await lateRun(90_000);
    expect(await sweep.run()).toMatchObject({ missed: 0, skipped: 1 });
    expect(await stateOf(held)).toMatchObject({ status: 'skipped', error: 'paused: incident 42' });
  });

  it('settles a backlog larger than a page, oldest first', async () => {
    const timer = await timers.insert(
      testDraft({ app: 'sweep', name: 'many', misfirePolicy: 'skip', misfireThresholdMs: 5000 }),
    );
    const runs = Array.from({ length: 4500 }, (_, i) => ({
      timerId: timer.id,
      app: 'sweep',
      runAt: T0 - 40_000 - i * 10,
      version: 1,
    }));
    await tasks.insertRuns(runs);
    // Five pages: each read while the one before is claimed, claimed while the one before that is written.
    const paged = new LateSweep({ ...sweepDeps(), pageSize: 1000 });
    expect(await paged.run()).toMatchObject({ missed: 4500, skipped: 0 });
    expect(await pendingCount()).toBe(0);
  });

  it('fails the pass when a page cannot be written, with what it wrote before kept and no rejection left unheard', async () => {
    const timer = await timers.insert(
      testDraft({ app: 'sweep', name: 'refused', misfirePolicy: 'skip', misfireThresholdMs: 5000 }),
    );
    await tasks.insertRuns(
      Array.from({ length: 30 }, (_, i) => ({
        timerId: timer.id,
        app: 'sweep',
        runAt: T0 - 40_000 - i * 10,
        version: 1,
      })),
    );
    let writes = 0;
    const refusing = {
      pastThreshold: tasks.pastThreshold.bind(tasks),
      settleUncalled: async (...args: Parameters<TaskRepository['settleUncalled']>) => {
        if (++writes === 2) throw new Error('MySQL refused the write');
        await tasks.settleUncalled(...args);
      },
    };
    const unheard: unknown[] = [];
    const onUnhandled = (err: unknown) => unheard.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(new LateSweep({ ...sweepDeps(), tasks: refusing, pageSize: 10 }).run()).rejects.toThrow(
        'MySQL refused the write',
      );
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unheard).toEqual([]);
    // The first page's ten are written. The next two pages' claims were finished: the
    // compensator copies those outcomes into MySQL, as for any write MySQL lost.
    expect(await pendingCount()).toBe(20);
  });
});

async function pendingCount(): Promise<number> {
  const [rows] = await stores.database.pool.query("SELECT COUNT(*) AS n FROM tasks WHERE status = 'pending'");
  return (rows as Array<{ n: number }>)[0]!.n;
}
