import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PreparedCall } from '../../../../src/callback/callback-request.js';
import type { CallResult } from '../../../../src/callback/http-caller.js';
import { dayKey } from '../../../../src/domain/plan/slice.js';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import type { Timer } from '../../../../src/domain/timer.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { Metrics } from '../../../../src/observability/metrics.js';
import { AppSlots } from '../../../../src/services/firing/admission/app-slots.js';
import { RunBudget } from '../../../../src/services/firing/admission/run-budget.js';
import { LeaseKeeper } from '../../../../src/services/firing/lease-keeper.js';
import type { RunToExecute, SettledRun } from '../../../../src/services/firing/run-execution.js';
import { RunExecutor } from '../../../../src/services/firing/run-executor.js';
import { RunRecorder } from '../../../../src/services/firing/settle/run-recorder.js';
import { TimerCache } from '../../../../src/services/firing/timer-cache.js';
import type { RunOutcome, RunState } from '../../../../src/storage/db/tasks/task-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import type { QueuedRun } from '../../../../src/storage/redis/queues.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { runExecutorDeps } from '../../../helpers/run-executor.js';
import { createTestStores, deleteKeys, eventually, type TestStores } from '../../../helpers/stores.js';
import { testTimer } from '../../../helpers/timers.js';

/**
 * RunExecutor over real claim records in Redis, with one injected clock for the claims,
 * the leases, the release gate and the executor's decisions, and an HTTP caller that
 * answers as each test says: what is sent, when, under which attempt, and when not.
 */
let stores: TestStores;
let clock = 0;
const T0 = Date.parse('2030-05-01T08:00:00Z');
let seq = 0;

interface Harness {
  executor: RunExecutor;
  claims: RunClaims;
  leases: LeaseKeeper;
  slots: AppSlots;
  sent: PreparedCall[];
  written: RunOutcome[];
  retries: Array<{ run: QueuedRun; delayMs: number }>;
  recorder: RunRecorder;
  answer: (call: PreparedCall) => Promise<CallResult>;
  history: Map<string, RunState>;
  /** MySQL reads of run history fail this many more times (an outage). */
  historyFailures: number;
  /** The pause of the whole service, while there is one. */
  paused: { note: string } | null;
  /** Makes the next request building throw, as when Redis or MySQL is unreachable for a moment. */
  failNextPrepare: boolean;
  /** The executor's log lines at warn and above. */
  logs: Array<Record<string, unknown>>;
  /** Redis may have lost data lately: no lease is surely held without asking. */
  redisSuspect: boolean;
  /** The timers as MySQL has them: replace one, then `cache.invalidate` it, for an edit. */
  timers: Timer[];
  cache: TimerCache;
  /** The runs handed to the aftermath (completion, notices, the failure count). */
  aftermaths: SettledRun[];
  metrics: Metrics;
}

function ok(status = 200): CallResult {
  return { kind: 'response', status, output: 'ok', retryAfter: null, sentAt: clock, durationMs: 3 };
}

function harness(timers: Timer | Timer[], perApp = 10, budget?: RunBudget): Harness {
  clock = T0 + 1000 * seq;
  const known = Array.isArray(timers) ? timers : [timers];
  const keys = createKeys(stores.config.prefix);
  const claims = new RunClaims(stores.redis, keys, { now: () => clock });
  const leases = new LeaseKeeper(claims, () => clock);
  const h = {} as Harness;
  h.sent = [];
  h.written = [];
  h.retries = [];
  h.history = new Map();
  h.historyFailures = 0;
  h.paused = null;
  h.failNextPrepare = false;
  h.redisSuspect = false;
  h.logs = [];
  h.answer = async () => ok();
  h.timers = known;
  h.aftermaths = [];
  h.metrics = new Metrics();
  h.cache = new TimerCache(async (ids) => h.timers.filter((t) => ids.includes(t.id)));
  h.claims = claims;
  h.leases = leases;
  h.slots = new AppSlots(perApp);
  h.recorder = new RunRecorder(async (o) => {
    h.written.push(...o);
  }, createLogger('silent'));
  h.executor = new RunExecutor(
    runExecutorDeps(
      { redis: stores.redis, keys, now: () => clock },
      {
        claims,
        leases,
        history: async () => {
          if (h.historyFailures > 0) {
            h.historyFailures--;
            throw new Error('connect ECONNREFUSED');
          }
          return h.history;
        },
        cache: h.cache,
        recorder: h.recorder,
        caller: {
          send: async (call) => {
            h.sent.push(call);
            return h.answer(call);
          },
        },
        slots: h.slots,
        budget,
        continuations: {
          retry: async (run, delayMs) => {
            h.retries.push({ run, delayMs });
          },
          withdraw: async () => undefined,
        },
        paused: () => h.paused,
        aftermath: {
          settled: async (e) => {
            h.aftermaths.push(e);
          },
        },
        redisMayHaveLostData: () => h.redisSuspect,
        metrics: h.metrics,
        logger: createLogger('warn', {}, { write: (line: string) => h.logs.push(JSON.parse(line)) }),
        signing: {
          forApp: async () => {
            if (!h.failNextPrepare) return null;
            h.failNextPrepare = false;
            throw new Error('Connection is closed.');
          },
        },
        sleep: async (ms) => {
          clock += ms;
        },
      },
    ),
  );
  return h;
}

/** A run due now (the gate lets it go at once). */
function dueRun(timer: Timer, extra: Partial<RunToExecute> = {}): RunToExecute {
  clock = T0 + 1000 * ++seq;
  return { timerId: timer.id, runAt: clock, slice: 'test', version: timer.version, ...extra };
}

async function outcomesOf(h: Harness, run: RunToExecute): Promise<RunOutcome[]> {
  await h.recorder.flush();
  return h.written.filter((o) => o.timerId === run.timerId && o.runAt === run.runAt);
}

beforeAll(async () => {
  stores = await createTestStores('runexec');
});
beforeEach(async () => {
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`]);
});
afterAll(async () => {
  await stores.cleanup();
});

describe('a run due now', () => {
  it('is called once with its task id and attempt 1, and recorded succeeded', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded', attempt: 1 });
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]!.headers).toMatchObject({
      'x-xtimer-task-id': taskKey(timer.id, run.runAt),
      'x-xtimer-attempt': '1',
    });
    expect(await outcomesOf(h, run)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
  });

  it('is called once however many copies of it are executed', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    const reports = await Promise.all([
      h.executor.execute(run),
      h.executor.execute(run),
      h.executor.execute(run),
    ]);
    expect(reports.map((r) => r.verdict).sort()).toEqual(['duplicate', 'duplicate', 'succeeded']);
    expect(h.sent).toHaveLength(1);
  });

  it('is not called when its lease was taken over while it waited (fenced), and records nothing', async () => {
    const timer = testTimer();
    const h = harness(timer, 1);
    // The app's one slot is busy: the run waits detached from its job.
    expect(h.slots.tryTake(timer.app)).toBe(true);
    const run = dueRun(timer);
    expect(await h.executor.execute(run)).toEqual({ verdict: 'deferred' });
    // No heartbeat reaches Redis (this holder looks dead): another executor takes it over.
    clock += 60_000;
    const other = await h.claims.claim(
      { key: taskKey(timer.id, run.runAt), runAt: run.runAt },
      'other',
      10_000,
    );
    // It waited parked, without a call: the takeover makes the same attempt.
    expect(other).toMatchObject({ outcome: 'claimed', attempt: 1 });
    h.slots.give(timer.app);
    await h.executor.drain();
    expect(h.sent).toHaveLength(0);
    expect(await outcomesOf(h, run)).toEqual([]);
  });

  it('stays its holder through a wait longer than the lease when the heartbeat renews it', async () => {
    const timer = testTimer();
    const h = harness(timer, 1);
    h.slots.tryTake(timer.app);
    const run = dueRun(timer);
    await h.executor.execute(run);
    for (let i = 0; i < 15; i++) {
      clock += 2000;
      await h.leases.beat();
    }
    const key = { key: taskKey(timer.id, run.runAt), runAt: run.runAt };
    expect(await h.claims.claim(key, 'other', 10_000)).toMatchObject({ outcome: 'busy' });
    h.slots.give(timer.app);
    await h.executor.drain();
    expect(h.sent).toHaveLength(1);
  });
});

describe('a run whose execution fails before its call', () => {
  it('has its attempt undone, so the next try of its job calls it at once, as attempt 1', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    h.failNextPrepare = true;
    await expect(h.executor.execute(run)).rejects.toThrow('Connection is closed.');
    expect(h.sent).toHaveLength(0);
    // Its lease is neither renewed nor left held: the job's retry claims it.
    expect(h.leases.size).toBe(0);
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded', attempt: 1 });
    expect(h.sent).toHaveLength(1);
  });
});

describe('a failed call', () => {
  it('is handed to a retry job after its backoff: the job lets go, the claim backs off', async () => {
    const timer = testTimer({ retry: { maxAttempts: 3, backoffMs: 1000 } });
    const h = harness(timer);
    h.answer = async () => ok(503);
    const run = dueRun(timer);
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'retrying', attempt: 1, httpStatus: 503 });
    expect(h.retries).toHaveLength(1);
    expect(h.retries[0]!.run).toMatchObject({ timerId: timer.id, runAt: run.runAt, afterAttempt: 1 });
    expect(h.retries[0]!.delayMs).toBeGreaterThanOrEqual(500);
    const [record] = await h.claims.peek([{ key: taskKey(timer.id, run.runAt), runAt: run.runAt }]);
    expect(record).toMatchObject({ state: 'backoff', attempt: 1 });
    expect(await outcomesOf(h, run)).toEqual([
      expect.objectContaining({ status: 'running', attempts: 1, httpStatus: 503 }),
    ]);
  });

  it('is retried by the retry job as attempt 2, with the same task id, and then recorded', async () => {
    const timer = testTimer({ retry: { maxAttempts: 3, backoffMs: 1000 } });
    const h = harness(timer);
    h.answer = async () => ok(503);
    const run = dueRun(timer);
    await h.executor.execute(run);
    h.answer = async () => ok(200);
    clock += h.retries[0]!.delayMs;
    expect(await h.executor.execute({ ...run, slice: 'retry', afterAttempt: 1 })).toMatchObject({
      verdict: 'succeeded',
      attempt: 2,
    });
    expect(h.sent.map((c) => c.headers['x-xtimer-attempt'])).toEqual(['1', '2']);
    expect(new Set(h.sent.map((c) => c.headers['x-xtimer-task-id'])).size).toBe(1);
    // Its lateness is its first call's, not the backoff's; it is counted once, as it ends.
    expect(await counted(h, 'xtimer_fire_lateness_seconds_count')).toBe(1);
    expect(await counted(h, 'xtimer_runs_total{outcome="succeeded"}')).toBe(1);
  });

  it('carries each earlier answer to the next attempt, whose outcome writes them with its own headers', async () => {
    const timer = testTimer({ retry: { maxAttempts: 3, backoffMs: 1000 } });
    const h = harness(timer);
    const answer = (status: number, note: string): CallResult => ({
      kind: 'response',
      status,
      output: note,
      retryAfter: null,
      sentAt: clock,
      durationMs: 3,
      headers: { 'x-note': note },
      bodyBytes: note.length,
    });
    h.answer = async () => answer(503, 'first');
    const run = dueRun(timer);
    await h.executor.execute(run);
    const [firstRetry] = h.retries;
    expect(firstRetry!.run.earlier).toEqual([
      expect.objectContaining({
        attempt: 1,
        httpStatus: 503,
        output: 'first',
        headers: { 'x-note': 'first' },
      }),
    ]);
    // The backoff's own outcome holds attempt 1 in its columns and its headers in the log.
    expect((await outcomesOf(h, run)).at(-1)?.answers).toEqual({
      attempt: 1,
      headers: { 'x-note': 'first' },
      bodyBytes: 5,
    });
    h.answer = async () => answer(502, 'second');
    clock += firstRetry!.delayMs;
    await h.executor.execute({ ...firstRetry!.run, slice: 'retry' });
    const secondRetry = h.retries[1]!;
    expect(secondRetry.run.earlier?.map((a) => [a.attempt, a.httpStatus])).toEqual([
      [1, 503],
      [2, 502],
    ]);
    h.answer = async () => answer(200, 'third');
    clock += secondRetry.delayMs;
    expect(await h.executor.execute({ ...secondRetry.run, slice: 'retry' })).toMatchObject({
      verdict: 'succeeded',
      attempt: 3,
    });
    const final = (await outcomesOf(h, run)).at(-1)!;
    expect(final).toMatchObject({ status: 'succeeded', attempts: 3, httpStatus: 200, output: 'third' });
    expect(final.answers?.attempt).toBe(3);
    expect(final.answers?.headers).toEqual({ 'x-note': 'third' });
    expect(final.answers?.earlier?.map((a) => a.output)).toEqual(['first', 'second']);
  });

  it('keeps its retries when the schedule changed meanwhile (a PATCH re-planned from after its time)', async () => {
    const timer = testTimer({ retry: { maxAttempts: 3, backoffMs: 1000 } });
    const h = harness(timer);
    h.answer = async () => ok(500);
    const run = dueRun(timer);
    await h.executor.execute(run);
    h.answer = async () => ok(200);
    clock += h.retries[0]!.delayMs;
    // The PATCH's new plan starts now, after the run's time, under a newer version.
    const patched = testTimer({
      ...timer,
      version: timer.version + 1,
      plannedFrom: clock,
      endAt: clock + 60_000,
    });
    const after = harness(patched);
    clock = run.runAt + h.retries[0]!.delayMs;
    expect(await after.executor.execute({ ...run, slice: 'retry', afterAttempt: 1 })).toMatchObject({
      verdict: 'succeeded',
      attempt: 2,
    });
  });

  it('keeps its retries under overlapPolicy skip when another run took the slot meanwhile, calling once that run is done', async () => {
    const timer = testTimer({ overlapPolicy: 'skip', retry: { maxAttempts: 3, backoffMs: 1000 } });
    const h = harness(timer);
    h.answer = async () => ok(500);
    const run = dueRun(timer);
    await h.executor.execute(run);
    // Its slot lapsed while the retry waited behind a backlog, and the next run took it.
    const slot = createKeys(stores.config.prefix).overlap(timer.id, 'running');
    await stores.redis.set(slot, taskKey(timer.id, run.runAt + 1000), 'PX', 60_000);
    h.answer = async () => ok(200);
    clock += h.retries[0]!.delayMs;
    expect(await h.executor.execute({ ...run, slice: 'retry', afterAttempt: 1 })).toEqual({
      verdict: 'deferred',
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.sent).toHaveLength(1);
    await stores.redis.del(slot);
    await eventually(
      async () => (await outcomesOf(h, run)).some((o) => o.status === 'succeeded' && o.attempts === 2),
      'its second attempt called once the slot was free',
    );
    expect(h.sent).toHaveLength(2);
  });

  it('ends its retries skipped once the timer is disabled', async () => {
    const timer = testTimer({ status: 'inactive' });
    const h = harness(timer);
    const run = dueRun(timer, { slice: 'retry', afterAttempt: 1 });
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'skipped' });
    expect(h.sent).toHaveLength(0);
  });

  it('after a timeout is recorded failed with "timeout after N ms" once attempts are spent', async () => {
    const timer = testTimer({ retry: { maxAttempts: 1, backoffMs: 0 } });
    const h = harness(timer);
    h.answer = async () => ({
      kind: 'error',
      error: 'timeout after 5000 ms',
      timedOut: true,
      sentAt: clock,
      durationMs: 5000,
    });
    const run = dueRun(timer);
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'failed' });
    expect(await outcomesOf(h, run)).toEqual([
      expect.objectContaining({ status: 'failed', error: 'timeout after 5000 ms' }),
    ]);
  });
});

/**
 * Apps `noisy` and `quiet`, one call in flight each at most; noisy's receiver never
 * answers, and one noisy run is already in flight when this returns.
 */
async function noisyAppHanging(budget?: RunBudget) {
  const noisy = testTimer({ id: 1, app: 'noisy' });
  const quiet = testTimer({ id: 2, app: 'quiet' });
  const h = harness([noisy, quiet], 1, budget);
  h.answer = (call) =>
    call.headers['x-xtimer-timer-id'] === '1' ? new Promise(() => undefined) : Promise.resolve(ok());
  void h.executor.execute(dueRun(noisy));
  await eventually(() => h.sent.length === 1, 'noisy call sent');
  return { h, noisy, quiet };
}

describe('the log line of a run that ended badly', () => {
  const timer = () =>
    testTimer({
      app: 'shop',
      name: 'nightly invoice',
      retry: { maxAttempts: 1, backoffMs: 0 },
      misfireThresholdMs: 5000,
      callback: {
        url: 'https://hooks.example.com:8443/run?token=sk_live_1',
        method: 'POST',
        headers: {},
        body: null,
        timeoutMs: 5000,
      },
    });

  it('names the app, timer, task key, callback host and reason of a failed run, in one line', async () => {
    const t = timer();
    const h = harness(t);
    h.answer = async () => ok(503);
    const run = dueRun(t);
    await h.executor.execute(run);
    expect(h.logs).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'run failed',
        app: 'shop',
        timer: 'nightly invoice',
        timerId: t.id,
        taskKey: taskKey(t.id, run.runAt),
        host: 'hooks.example.com:8443',
        reason: 'HTTP 503',
        attempts: 1,
      }),
    ]);
    expect(JSON.stringify(h.logs)).not.toContain('sk_live');
  });

  it('says why a missed run was not called', async () => {
    const t = timer();
    const h = harness(t);
    const run = dueRun(t);
    clock += 30_000;
    await h.executor.execute(run);
    expect(h.logs).toEqual([
      expect.objectContaining({
        msg: 'run missed',
        app: 'shop',
        timer: 'nightly invoice',
        taskKey: taskKey(t.id, run.runAt),
        host: 'hooks.example.com:8443',
        reason: expect.stringMatching(
          /^missed: picked up \d+ ms after its time \(misfire policy fire_once\)$/,
        ),
      }),
    ]);
  });

  it('is not written for a run that succeeded or was skipped', async () => {
    const t = timer();
    const h = harness(t);
    await h.executor.execute(dueRun(t));
    const inactive = harness(testTimer({ status: 'inactive' }));
    await inactive.executor.execute(dueRun(testTimer({ status: 'inactive' })));
    expect([...h.logs, ...inactive.logs]).toEqual([]);
  });
});

describe("an app's in-flight limit", () => {
  it('parks a run over the limit without its job, and calls it as soon as a call of its app ends', async () => {
    const timer = testTimer();
    const h = harness(timer, 1);
    let answerFirst!: (r: CallResult) => void;
    h.answer = () => new Promise((resolve) => (answerFirst = resolve));
    const first = dueRun(timer);
    const firstReport = h.executor.execute(first);
    await eventually(() => h.sent.length === 1, 'first call sent');
    h.answer = async () => ok();
    const second = dueRun(timer);
    expect(await h.executor.execute(second)).toEqual({ verdict: 'deferred' });
    expect(h.sent).toHaveLength(1);
    answerFirst(ok());
    await firstReport;
    await h.executor.drain();
    expect(h.sent).toHaveLength(2);
    expect(await outcomesOf(h, second)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it("keeps its timer's in-flight slot while it waits (overlapPolicy skip): the next run is skipped, not called beside it", async () => {
    const base = testTimer();
    const timer = testTimer({ overlapPolicy: 'skip', callback: { ...base.callback, timeoutMs: 100 } });
    const h = harness(timer, 1);
    // The app's one slot is busy (its receivers hang): the first run waits, holding the timer's slot.
    expect(h.slots.tryTake(timer.app)).toBe(true);
    const first = dueRun(timer);
    expect(await h.executor.execute(first)).toEqual({ verdict: 'deferred' });
    // Past the slot's own time to live: the call's timeout and 5 s.
    await new Promise((r) => setTimeout(r, 5400));
    expect(await h.executor.execute(dueRun(timer))).toMatchObject({ verdict: 'skipped' });
    h.slots.give(timer.app);
    await eventually(() => h.sent.length === 1, 'the first run called');
  });

  /** A buffer_one run in the timer's one waiting place: the run before it is still in flight. */
  async function waitingBehindTheRunBefore() {
    const timer = testTimer({ overlapPolicy: 'buffer_one' });
    const h = harness(timer);
    const keys = createKeys(stores.config.prefix);
    await stores.redis.set(keys.overlap(timer.id, 'running'), 'the-run-before', 'PX', 60_000);
    const run = dueRun(timer);
    expect(await h.executor.execute(run)).toEqual({ verdict: 'deferred' });
    return { timer, h, keys, run };
  }

  it('waits, under buffer_one, in the one waiting place until the run in flight is done, then goes', async () => {
    const { timer, h, keys } = await waitingBehindTheRunBefore();
    expect(h.sent).toHaveLength(0);
    await stores.redis.del(keys.overlap(timer.id, 'running'));
    await eventually(() => h.sent.length === 1, 'called once the run before was done');
  });

  it('is left out of the oldest-due figure while it waits for the run before it (a slow receiver, not a backlog)', async () => {
    const { timer, h, keys } = await waitingBehindTheRunBefore();
    expect(h.executor.oldestUnsentDue()).toBeNull();
    await stores.redis.del(keys.overlap(timer.id, 'running'));
    await eventually(() => h.sent.length === 1, 'called once the run before was done');
  });

  it('is skipped under buffer_one when its waiting place lapsed and another run waits there', async () => {
    const { timer, h, keys, run } = await waitingBehindTheRunBefore();
    // It stalled past its place's time to live: a later run waits there now.
    await stores.redis.set(keys.overlap(timer.id, 'buffered'), 'a-later-run', 'PX', 60_000);
    await eventually(async () => (await outcomesOf(h, run)).some((o) => o.status === 'skipped'), 'skipped');
    await stores.redis.del(keys.overlap(timer.id, 'running'));
    expect(h.sent).toHaveLength(0);
  });

  it("does not hold back another app's runs", async () => {
    const { h, noisy, quiet } = await noisyAppHanging();
    expect(await h.executor.execute(dueRun(noisy))).toEqual({ verdict: 'deferred' });
    expect(await h.executor.execute(dueRun(quiet))).toMatchObject({ verdict: 'succeeded' });
  });
});

describe("the process's run budget", () => {
  it('leaves a run beyond it unclaimed until a run ends, then carries it', async () => {
    const timer = testTimer();
    const budget = new RunBudget(1);
    const h = harness(timer, 10, budget);
    let answerFirst!: (r: CallResult) => void;
    h.answer = () => new Promise((resolve) => (answerFirst = resolve));
    const first = h.executor.execute(dueRun(timer));
    await eventually(() => h.sent.length === 1, 'first call sent');
    h.answer = async () => ok();
    const run = dueRun(timer);
    const second = h.executor.execute(run);
    await eventually(() => budget.waiting === 1, 'second run waits for a permit');
    // Not claimed while it waits: its record is absent, so another executor may take it.
    expect(await h.claims.peek([{ key: `${run.timerId}_${run.runAt}`, runAt: run.runAt }])).toEqual([null]);
    answerFirst(ok());
    await first;
    expect(await second).toMatchObject({ verdict: 'succeeded' });
    expect(h.sent).toHaveLength(2);
  });

  it('is given back by a run that lets go of its job to wait for its app', async () => {
    const { h, noisy, quiet } = await noisyAppHanging(new RunBudget(2));
    // The second noisy run waits for its app's slot, detached: it holds no permit...
    expect(await h.executor.execute(dueRun(noisy))).toEqual({ verdict: 'deferred' });
    // ...so the quiet app's run gets the second permit at once.
    expect(await h.executor.execute(dueRun(quiet))).toMatchObject({ verdict: 'succeeded' });
  });

  it('withdraws a run still waiting for a permit at shutdown, unclaimed', async () => {
    const timer = testTimer();
    const budget = new RunBudget(1);
    const h = harness(timer, 10, budget);
    h.answer = () => new Promise(() => undefined);
    void h.executor.execute(dueRun(timer));
    await eventually(() => h.sent.length === 1, 'first call sent');
    const waiting = h.executor.execute(dueRun(timer));
    await eventually(() => budget.waiting === 1, 'second run waits for a permit');
    budget.close();
    expect(await waiting).toEqual({ verdict: 'withdrawn' });
    expect(h.sent).toHaveLength(1);
  });
});

describe('a run that must not be called', () => {
  it('is skipped with its reason when a newer plan of its timer superseded it', async () => {
    // Version 3 fires at second 0 only; the run was planned by version 2 for second 30.
    const timer = testTimer({ cron: '0 * * * * *', version: 3, plannedFrom: T0 });
    const h = harness(timer);
    clock = T0 + 30_000;
    const run: RunToExecute = { timerId: timer.id, runAt: clock, slice: 'test', version: 2 };
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'skipped' });
    expect(h.sent).toHaveLength(0);
    const [outcome] = await outcomesOf(h, run);
    expect(outcome).toMatchObject({ status: 'skipped', attempts: 0 });
    expect(outcome!.error).toMatch(/^superseded: planned for timer version 2/);
  });

  it('is judged at its time when picked up ahead: an edit before then may put it back', async () => {
    // Picked up a second ahead, the run of version 2 is not in version 3's plan; version 4,
    // committed before its time, makes the same instant again (the same task key).
    const timer = testTimer({ cron: '0 * * * * *', version: 3, plannedFrom: T0 });
    const h = harness(timer);
    clock = T0 + 29_000;
    const run: RunToExecute = { timerId: timer.id, runAt: T0 + 30_000, slice: 'test', version: 2 };
    const executing = h.executor.execute(run);
    await eventually(() => h.leases.size === 1, 'claimed ahead of its time');
    expect(await outcomesOf(h, run)).toEqual([]);
    h.timers = [{ ...timer, cron: '*/10 * * * * *', version: 4 }];
    h.cache.invalidate(timer.id);
    clock += 1000;
    expect(await executing).toMatchObject({ verdict: 'succeeded' });
    expect(h.sent).toHaveLength(1);
    expect(await outcomesOf(h, run)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('picked up ahead and not put back, is skipped at its time with its reason', async () => {
    const timer = testTimer({ status: 'inactive' });
    const h = harness(timer);
    // A copy the compensator queued is judged through its claim, not dropped unclaimed.
    const run: RunToExecute = {
      timerId: timer.id,
      runAt: clock + 1000,
      slice: 'compensator',
      version: timer.version,
    };
    const executing = h.executor.execute(run);
    await eventually(() => h.leases.size === 1, 'claimed ahead of its time');
    clock += 1000;
    expect(await executing).toMatchObject({ verdict: 'skipped' });
    expect(h.sent).toHaveLength(0);
    expect(await outcomesOf(h, run)).toEqual([
      expect.objectContaining({ status: 'skipped', error: 'skipped: the timer is inactive' }),
    ]);
  });

  it('still fires when the newer plan makes the same instant', async () => {
    const timer = testTimer({ cron: '*/10 * * * * *', version: 3, plannedFrom: T0 });
    const h = harness(timer);
    clock = T0 + 30_000;
    expect(
      await h.executor.execute({ timerId: timer.id, runAt: clock, slice: 'test', version: 2 }),
    ).toMatchObject({ verdict: 'succeeded' });
  });

  it('is skipped when its timer was disabled before it went out', async () => {
    const timer = testTimer({ status: 'inactive' });
    const h = harness(timer);
    expect(await h.executor.execute(dueRun(timer))).toMatchObject({ verdict: 'skipped' });
    expect(h.sent).toHaveLength(0);
  });

  it('is recorded missed when picked up past its misfire threshold and its successor is late too', async () => {
    const timer = testTimer({ misfireThresholdMs: 5000 });
    const h = harness(timer);
    const run = dueRun(timer);
    clock += 30_000;
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'missed' });
    expect(h.sent).toHaveLength(0);
  });
});

describe('a run of a timer that completed meanwhile', () => {
  it('is still owed: a backlog may settle the final run first, and completion cancels no run', async () => {
    const timer = testTimer({ status: 'completed' });
    const h = harness(timer);
    expect(await h.executor.execute(dueRun(timer))).toMatchObject({ verdict: 'succeeded' });
    expect(h.sent).toHaveLength(1);
  });
});

describe('after Redis lost the claim records', () => {
  it('leaves a run that MySQL shows running under a live lease to its holder', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    h.history.set(taskKey(timer.id, run.runAt), {
      status: 'running',
      attempts: 1,
      leaseUntil: clock + 60_000,
    });
    // No bloom filter yet: the claim cannot rule out that the run ran, so MySQL is asked.
    expect(await h.executor.execute(run)).toEqual({ verdict: 'duplicate' });
    expect(h.sent).toHaveLength(0);
  });

  it('sends a run whose holder died mid-call (MySQL lease over) as the next attempt', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    h.history.set(taskKey(timer.id, run.runAt), { status: 'running', attempts: 1, leaseUntil: clock - 1 });
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded', attempt: 2 });
    expect(h.sent.map((c) => c.headers['x-xtimer-attempt'])).toEqual(['2']);
  });
});

describe('while MySQL cannot be read', () => {
  it('calls a run claimed before its time without asking MySQL, whatever the bloom filter says', async () => {
    const timer = testTimer();
    const h = harness(timer);
    h.historyFailures = Number.POSITIVE_INFINITY;
    // No bloom filter for the day yet ("unknown"), and the run is due a second from now.
    const run = { timerId: timer.id, runAt: clock + 1000, slice: 'test', version: timer.version };
    const executing = h.executor.execute(run);
    await eventually(() => h.leases.size === 1, 'claimed ahead of its time');
    clock += 1000;
    expect(await executing).toMatchObject({ verdict: 'succeeded', attempt: 1 });
  });

  it('never reads a failed history check as "never ran": it asks again, then fails the job', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    h.history.set(taskKey(timer.id, run.runAt), { status: 'succeeded', attempts: 1, leaseUntil: null });
    h.historyFailures = 10;
    await expect(h.executor.execute(run)).rejects.toThrow('ECONNREFUSED');
    expect(h.sent).toHaveLength(0);
    expect(h.leases.size).toBe(0);
    // A blip: the next read answers, and the run is found done.
    h.historyFailures = 2;
    expect(await h.executor.execute(run)).toEqual({ verdict: 'duplicate' });
    expect(h.sent).toHaveLength(0);
  });
});

describe('a run that will not be called', () => {
  it("needs no permit: a disabled timer's backlog is settled while every permit is held", async () => {
    const active = testTimer({ id: 50 });
    const disabled = testTimer({ id: 51, status: 'inactive' });
    const budget = new RunBudget(1);
    const h = harness([active, disabled], 10, budget);
    expect(await budget.take()).toBe(true);
    const waiting = h.executor.execute(dueRun(active));
    const skipped = await h.executor.execute(dueRun(disabled));
    expect(skipped).toMatchObject({ verdict: 'skipped' });
    budget.give();
    expect(await waiting).toMatchObject({ verdict: 'succeeded' });
  });

  it('is skipped while the service is paused, with its note, unless a user asked for it', async () => {
    const timer = testTimer();
    const h = harness(timer);
    h.paused = { note: 'incident 42' };
    const run = dueRun(timer);
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'skipped' });
    expect(await outcomesOf(h, run)).toEqual([
      expect.objectContaining({ status: 'skipped', error: 'paused: incident 42' }),
    ]);
    expect(await h.executor.execute(dueRun(timer, { trigger: 'manual' }))).toMatchObject({
      verdict: 'succeeded',
    });
    h.paused = null;
    expect(await h.executor.execute(dueRun(timer))).toMatchObject({ verdict: 'succeeded' });
  });

  it('is skipped when the pause begins while it waits for its time, a long note cut to the column', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = { timerId: timer.id, runAt: clock + 1000, slice: 'test', version: timer.version };
    const executing = h.executor.execute(run);
    await eventually(() => h.leases.size === 1, 'claimed ahead of its time');
    h.paused = { note: 'n'.repeat(1024) };
    clock += 1000;
    expect(await executing).toMatchObject({ verdict: 'skipped' });
    expect(h.sent).toHaveLength(0);
    const [outcome] = await outcomesOf(h, run);
    expect(outcome!.error).toBe(`paused: ${'n'.repeat(1024 - 'paused: '.length)}`);
  });

  it('is called when the pause ends before its time: a pause is judged at the run time, not at pick-up', async () => {
    const timer = testTimer();
    const h = harness(timer);
    h.paused = { note: 'almost over' };
    const run = { timerId: timer.id, runAt: clock + 1000, slice: 'test', version: timer.version };
    const executing = h.executor.execute(run);
    await eventually(() => h.leases.size === 1, 'claimed ahead of its time');
    h.paused = null;
    clock += 1000;
    expect(await executing).toMatchObject({ verdict: 'succeeded' });
    expect(h.sent).toHaveLength(1);
  });
});

describe('the claim of a run being called', () => {
  /** A run due now, sent and marked called, its answer held until the test gives it. */
  async function calledAndHeld(h: Harness, timer: Timer) {
    let answer!: (r: CallResult) => void;
    h.answer = () => new Promise<CallResult>((r) => (answer = r));
    const run = dueRun(timer);
    const key = { key: taskKey(timer.id, run.runAt), runAt: run.runAt };
    const executing = h.executor.execute(run);
    await eventually(() => h.sent.length === 1, 'sent');
    await eventually(async () => (await h.claims.peek([key]))[0]?.state === 'running', 'marked called');
    return { answer: (r: CallResult) => answer(r), key, executing };
  }

  it('says the call may have gone out only once it is sent, so a takeover before counts no call', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const { answer, executing } = await calledAndHeld(h, timer);
    answer(ok());
    expect(await executing).toMatchObject({ verdict: 'succeeded', attempt: 1 });
  });

  it('leaves the aftermath to the holder that took it over while its call was out (one notice, one failure counted)', async () => {
    const timer = testTimer({ retry: { maxAttempts: 1, backoffMs: 0 } });
    const h = harness(timer);
    const { answer, key, executing } = await calledAndHeld(h, timer);
    // This holder froze past its lease: another took the run over as attempt 2 and settled it.
    clock += 60_000;
    expect(await h.claims.claim(key, 'other', 10_000)).toMatchObject({ outcome: 'claimed', attempt: 2 });
    await h.claims.finish(key, 'other', 2, 'failed');
    answer(ok(500));
    expect(await executing).toMatchObject({ verdict: 'failed' });
    expect(h.aftermaths).toEqual([]);
    // Nor does it count the run: the holder that finished it does.
    expect(await counted(h, 'xtimer_runs_total{outcome="failed"}')).toBe(0);
  });

  it('measures no lateness for a user’s retry of a missed run, though it is its first call', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer, { trigger: 'retry', afterAttempt: 0 });
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded', attempt: 1 });
    expect(await counted(h, 'xtimer_fire_lateness_seconds_count')).toBe(0);
  });

  it('hands a run it settled to the aftermath', async () => {
    const timer = testTimer();
    const h = harness(timer);
    expect(await h.executor.execute(dueRun(timer))).toMatchObject({ verdict: 'succeeded' });
    expect(h.aftermaths).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('is marked called before the call goes out, so a holder killed mid-call is never repeated as the same attempt', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    const key = { key: taskKey(timer.id, run.runAt), runAt: run.runAt };
    let seenAtSend: string | undefined;
    h.answer = async () => {
      seenAtSend = (await h.claims.peek([key]))[0]?.state;
      return ok();
    };
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded', attempt: 1 });
    expect(seenAtSend).toBe('running');
  });

  /** Between the executor's last look at its lease and its mark, the run is taken over. */
  function takenOverAtTheMark(h: Harness, key: { key: string; runAt: number }): void {
    const claims = h.claims;
    const mark = claims.markCalling.bind(claims);
    claims.markCalling = (ref, owner, attempt, untilMs) => {
      const taken = stores.redis.set(
        createKeys(stores.config.prefix).claim(dayKey(key.runAt), key.key),
        `claimed|2|${clock + 10_000}|other`,
      );
      const marking = taken.then(() => mark(ref, owner, attempt, untilMs));
      return { sent: marking.then((m) => m.sent), answer: marking.then((m) => m.answer) };
    };
  }

  it('is not sent when marking it finds another holder where the lease is not surely held: the mark is a fence', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    h.redisSuspect = true;
    takenOverAtTheMark(h, { key: taskKey(timer.id, run.runAt), runAt: run.runAt });
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'duplicate' });
    expect(h.sent).toHaveLength(0);
  });

  it('goes out without waiting for the mark where the lease surely holds, and says so if the mark then finds another holder', async () => {
    const timer = testTimer();
    const h = harness(timer);
    const run = dueRun(timer);
    takenOverAtTheMark(h, { key: taskKey(timer.id, run.runAt), runAt: run.runAt });
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded' });
    expect(h.sent).toHaveLength(1);
    await eventually(
      () => h.logs.some((l) => /another holder/.test(String(l.msg))),
      'the disagreement logged',
    );
  });
});

describe('a job that came back after its holder died mid-call', () => {
  it('is a continuation, past its misfire threshold too: the claim says a call was made', async () => {
    const timer = testTimer({ misfirePolicy: 'skip', misfireThresholdMs: 1000 });
    const h = harness(timer);
    const run = dueRun(timer);
    const ref = { key: taskKey(timer.id, run.runAt), runAt: run.runAt };
    // Another process claimed it, called, and died: its lease lapsed long ago.
    await h.claims.claim(ref, 'dead', 10_000);
    await h.claims.markCalled(ref, 'dead', 1, clock + 10_000);
    clock += 60_000;
    // BullMQ hands the job back as it was queued, without afterAttempt.
    expect(await h.executor.execute(run)).toMatchObject({ verdict: 'succeeded', attempt: 2 });
    expect(h.sent.map((c) => c.headers['x-xtimer-attempt'])).toEqual(['2']);
  });
});

/** A figure of the harness's /metrics. */
async function counted(h: Harness, series: string): Promise<number> {
  const { body } = await h.metrics.render();
  return Number(
    body
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.split(' ')[1],
  );
}
