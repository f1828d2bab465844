import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { Compensator } from '../../../../src/services/recovery/compensator.js';
import { sqlDateTime } from '../../../../src/storage/db/multi-row-insert.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import {
  createQueues,
  executeJobs,
  type Queues,
  type RunJobData,
} from '../../../../src/storage/redis/queues.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { createTestStores, deleteKeys, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/**
 * The compensator over real MySQL rows and claim records, at instants the test picks:
 * it re-queues a run only when its holder is gone, never one that is merely late.
 */
let stores: TestStores;
let tasks: TaskRepository;
let timers: TimerRepository;
let claims: RunClaims;
let queues: Queues;
let compensator: Compensator;
let clock = 0;
let timerId = 0;
const T0 = Date.parse('2030-06-01T12:00:00Z');
const LEASE = 10_000;
/** The compensator's log lines at warn and above. */
const logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  stores = await createTestStores('compensator');
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
  timers = new TimerRepository(stores.database.db);
  const keys = createKeys(stores.config.prefix);
  claims = new RunClaims(stores.redis, keys, { now: () => clock });
  queues = createQueues(stores.redis, keys);
  compensator = new Compensator({
    timers,
    tasks,
    claims,
    queues,
    record: (o) => tasks.recordOutcomes(o),
    logger: createLogger('warn', {}, { write: (line: string) => logs.push(JSON.parse(line)) }),
  });
});
beforeEach(async () => {
  clock = T0;
  logs.length = 0;
  await stores.database.pool.query('DELETE FROM tasks');
  await stores.database.pool.query('DELETE FROM timers');
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`, `{${stores.name}}:*`]);
  const timer = await timers.insert(
    testDraft({
      app: 'comp',
      name: `t${Date.now()}`,
      callback: { url: 'http://127.0.0.1:9/x', method: 'POST', headers: {}, body: null, timeoutMs: 1000 },
      retry: { maxAttempts: 1, backoffMs: 0 },
      misfirePolicy: 'fire_all',
    }),
  );

  timerId = timer.id;
});
afterAll(async () => {
  await queues.close();
  await stores.cleanup();
});

/** A run row, due `agoMs` before T0, in the given state. */
async function runRow(
  agoMs: number,
  state: { status?: string; attempts?: number; leaseUntil?: number } = {},
) {
  const runAt = T0 - agoMs;
  await tasks.insertRuns([{ timerId, app: 'comp', runAt, version: 1 }]);
  if (state.status) {
    await stores.database.pool.query(
      'UPDATE tasks SET status = ?, attempts = ?, lease_until = ? WHERE timer_id = ? AND run_at = ?',
      [
        state.status,
        state.attempts ?? 0,
        state.leaseUntil === undefined ? null : sqlDateTime(state.leaseUntil),
        timerId,
        sqlDateTime(runAt),
      ],
    );
  }
  return { timerId, runAt, ref: { key: taskKey(timerId, runAt), runAt } };
}

/** What waits in the execute lanes (the compensator queues in the catch-up lane). */
async function queued(): Promise<RunJobData[]> {
  const jobs = [queues.execute, queues.executeLate].map((lane) =>
    lane.getJobs(['waiting', 'delayed', 'prioritized']),
  );
  return (await Promise.all(jobs)).flat().map((j) => j.data as RunJobData);
}

async function statusOf(run: { timerId: number; runAt: number }) {
  return (await tasks.states([run])).get(taskKey(run.timerId, run.runAt));
}

describe('a run MySQL still shows pending, minutes after its time', () => {
  it('is left alone while its holder renews its lease, however late it is', async () => {
    const run = await runRow(5 * 60_000);
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'alive', LEASE);
    clock = T0 - 5000;
    expect(await claims.renew(run.ref, 'alive', 1, LEASE)).toBe('held');
    clock = T0;
    const report = await compensator.run(T0);
    expect(report).toMatchObject({ requeued: 0, refired: 0, missed: 0 });
    expect(await queued()).toEqual([]);
    expect(await statusOf(run)).toMatchObject({ status: 'pending' });
  });

  it('is queued again as its next attempt once its holder is gone (lease lapsed, no heartbeat)', async () => {
    const run = await runRow(5 * 60_000);
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'dead', LEASE);
    // It died calling.
    await claims.markCalled(run.ref, 'dead', 1, clock + LEASE);
    clock = T0;
    expect(await compensator.run(T0)).toMatchObject({ requeued: 1 });
    expect(await queued()).toEqual([
      expect.objectContaining({ timerId, runAt: run.runAt, afterAttempt: 1, slice: 'compensator' }),
    ]);
    // A second pass while that job waits queues nothing more.
    await compensator.run(T0 + 30_000);
    expect(await queued()).toHaveLength(1);
  });

  it('is queued again as a fresh pick-up when its holder died before calling', async () => {
    const run = await runRow(5 * 60_000);
    clock = T0 - 60_000;
    // It waited for its app's slot, without a call, when its process died.
    await claims.claim(run.ref, 'dead', LEASE);
    clock = T0;
    expect(await compensator.run(T0)).toMatchObject({ requeued: 1 });
    const [job] = await queued();
    expect(job).toMatchObject({ timerId, runAt: run.runAt, afterAttempt: 0 });
    // Claimed again, it is the same attempt: none was made.
    expect(await claims.claim(run.ref, 'next', LEASE, job!.afterAttempt)).toMatchObject({
      outcome: 'claimed',
      attempt: 1,
    });
  });

  it('takes its outcome from the claim record when MySQL lost the write', async () => {
    const run = await runRow(5 * 60_000);
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'a', LEASE);
    await claims.finish(run.ref, 'a', 1, 'succeeded');
    expect(await compensator.run(T0)).toMatchObject({ recovered: 1, requeued: 0 });
    expect(await statusOf(run)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('is settled by its misfire policy when it was never claimed (fire_all: queued to fire)', async () => {
    const run = await runRow(5 * 60_000);
    expect(await compensator.run(T0)).toMatchObject({ refired: 1 });
    expect(await queued()).toEqual([
      expect.objectContaining({ timerId, runAt: run.runAt, slice: 'compensator' }),
    ]);
  });

  it('is recorded missed under misfire policy skip, with a log line naming its timer, callback host and why', async () => {
    const run = await runRow(5 * 60_000);
    await stores.database.pool.query("UPDATE timers SET misfire_policy = 'skip' WHERE id = ?", [timerId]);
    expect(await compensator.run(T0)).toMatchObject({ refired: 0, missed: 1 });
    expect(await statusOf(run)).toMatchObject({ status: 'missed' });
    expect(logs.filter((l) => l.msg === 'run missed')).toEqual([
      expect.objectContaining({
        app: 'comp',
        timer: expect.stringMatching(/^t\d+$/),
        timerId,
        taskKey: run.ref.key,
        host: '127.0.0.1:9',
        reason: expect.stringMatching(/^missed: never picked up before its misfire threshold/),
      }),
    ]);
  });

  it.each(['execute', 'executeLate'] as const)(
    'is left alone while the %s lane is behind it: waiting its turn, it is late, not lost',
    async (lane) => {
      const run = await runRow(5 * 60_000);
      // An earlier run's job waits at the lane's head: a lane is worked in order.
      const [waiting] = executeJobs([{ timerId, runAt: run.runAt - 1000 }], 'slice');
      await queues[lane].add(waiting!.name, waiting!.data, waiting!.opts);
      expect(await compensator.run(T0)).toMatchObject({ refired: 0, missed: 0 });
      expect(await statusOf(run)).toMatchObject({ status: 'pending' });
      // Once the lane has moved past it unclaimed, it was lost: settled by its policy,
      // queued again in the catch-up lane (it is overdue).
      await queues[lane].obliterate({ force: true });
      expect(await compensator.run(T0)).toMatchObject({ refired: 1 });
      expect((await queues.executeLate.getJobs(['waiting'])).map((j) => j.data)).toEqual([
        expect.objectContaining({ timerId, runAt: run.runAt }),
      ]);
    },
  );

  it('takes its outcome from the claim record even while the queue is behind it', async () => {
    const run = await runRow(5 * 60_000);
    const [waiting] = executeJobs([{ timerId, runAt: run.runAt - 1000 }], 'slice');
    await queues.execute.add(waiting!.name, waiting!.data, waiting!.opts);
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'a', LEASE);
    await claims.finish(run.ref, 'a', 1, 'succeeded');
    expect(await compensator.run(T0)).toMatchObject({ recovered: 1, refired: 0 });
    expect(await statusOf(run)).toMatchObject({ status: 'succeeded' });
  });

  it('reads on past a page of runs the queue is behind: runs beyond them are settled in the same pass', async () => {
    // A page (2,000) of runs behind a waiting job, then 50 whose claim records say succeeded.
    const waitingFor = Array.from({ length: 2000 }, (_, i) => T0 - 10 * 60_000 + i * 100);
    const finished = Array.from({ length: 50 }, (_, i) => T0 - 5 * 60_000 + i * 1000);
    await tasks.insertRuns(
      [...waitingFor, ...finished].map((runAt) => ({ timerId, app: 'comp', runAt, version: 1 })),
    );
    const [waiting] = executeJobs([{ timerId, runAt: waitingFor[0]! }], 'slice');
    await queues.execute.add(waiting!.name, waiting!.data, waiting!.opts);
    clock = T0 - 60_000;
    for (const runAt of finished) {
      const ref = { key: taskKey(timerId, runAt), runAt };
      await claims.claim(ref, 'a', LEASE);
      await claims.finish(ref, 'a', 1, 'succeeded');
    }
    expect(await compensator.run(T0)).toMatchObject({ recovered: 50, refired: 0, missed: 0 });
  });

  it('is still owed when its timer completed meanwhile (its final run settled first): fired by its policy', async () => {
    const run = await runRow(5 * 60_000);
    await stores.database.pool.query("UPDATE timers SET status = 'completed' WHERE id = ?", [timerId]);
    expect(await compensator.run(T0)).toMatchObject({ refired: 1, skipped: 0 });
    expect(await queued()).toEqual([expect.objectContaining({ timerId, runAt: run.runAt })]);
  });

  it('is skipped when its timer was disabled', async () => {
    const run = await runRow(5 * 60_000);
    await stores.database.pool.query("UPDATE timers SET status = 'inactive' WHERE id = ?", [timerId]);
    expect(await compensator.run(T0)).toMatchObject({ refired: 0, skipped: 1 });
    expect(await statusOf(run)).toMatchObject({ status: 'skipped' });
  });

  it("is a user's run now, queued again as one when lost, whatever its timer's status and lateness", async () => {
    const run = await runRow(5 * 60_000);
    await stores.database.pool.query(
      "UPDATE tasks SET run_trigger = 'manual' WHERE timer_id = ? AND run_at = ?",
      [timerId, sqlDateTime(run.runAt)],
    );
    await stores.database.pool.query(
      "UPDATE timers SET status = 'inactive', misfire_policy = 'skip' WHERE id = ?",
      [timerId],
    );
    expect(await compensator.run(T0)).toMatchObject({ refired: 1, skipped: 0, missed: 0 });
    expect(await statusOf(run)).toMatchObject({ status: 'pending' });
    expect(await queued()).toEqual([
      expect.objectContaining({ timerId, runAt: run.runAt, trigger: 'manual', slice: 'compensator' }),
    ]);
  });

  it('keeps what made it when its holder died before calling: a retry goes out as a retry', async () => {
    const run = await runRow(5 * 60_000);
    await stores.database.pool.query(
      "UPDATE tasks SET run_trigger = 'retry' WHERE timer_id = ? AND run_at = ?",
      [timerId, sqlDateTime(run.runAt)],
    );
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'dead', LEASE);
    clock = T0;
    expect(await compensator.run(T0)).toMatchObject({ requeued: 1 });
    expect(await queued()).toEqual([
      expect.objectContaining({ timerId, runAt: run.runAt, afterAttempt: 0, trigger: 'retry' }),
    ]);
  });

  it('is left alone while it backs off, until well after its retry time', async () => {
    const run = await runRow(5 * 60_000);
    clock = T0 - 60_000;
    await claims.claim(run.ref, 'a', LEASE);
    await claims.backOff(run.ref, 'a', 1, 90_000);
    clock = T0 + 40_000;
    expect(await compensator.run(clock)).toMatchObject({ requeued: 0 });
    clock = T0 + 120_000;
    expect(await compensator.run(clock)).toMatchObject({ requeued: 1 });
    expect(await queued()).toEqual([expect.objectContaining({ afterAttempt: 1 })]);
  });
});

describe('a run MySQL shows running past its lease', () => {
  it('is left to a holder that still renews (its heartbeat reaches Redis, not MySQL)', async () => {
    const run = await runRow(60_000, { status: 'running', attempts: 1, leaseUntil: T0 - 10_000 });
    clock = T0 - 2000;
    await claims.claim(run.ref, 'alive', LEASE);
    clock = T0;
    expect(await compensator.run(T0)).toMatchObject({ requeued: 0 });
    expect(await queued()).toEqual([]);
  });

  it('is sent again as attempt n + 1 when Redis lost its claim and its MySQL lease ran out', async () => {
    const run = await runRow(60_000, { status: 'running', attempts: 2, leaseUntil: T0 - 10_000 });
    expect(await compensator.run(T0)).toMatchObject({ requeued: 1 });
    expect(await queued()).toEqual([expect.objectContaining({ runAt: run.runAt, afterAttempt: 2 })]);
  });

  it('is not touched while its MySQL lease lasts, even without a claim record', async () => {
    await runRow(60_000, { status: 'running', attempts: 1, leaseUntil: T0 + 10_000 });
    expect(await compensator.run(T0)).toMatchObject({ requeued: 0 });
  });
});
