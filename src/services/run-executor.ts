import { prepareCall, withAttempt } from '../callback/callback-request.js';
import type { CallResult, HttpCaller } from '../callback/http-caller.js';
import { isRetryable, isSuccess, parseRetryAfter, retryDelayMs } from '../callback/retry-policy.js';
import type { CallSigning } from '../callback/webhook-signer.js';
import { type CronSchedule, nextRuns, parseCron } from '../domain/cron-schedule.js';
import { misfireDecision } from '../domain/misfire.js';
import { taskKey } from '../domain/task-key.js';
import { LIMITS, type TaskStatus, type Timer } from '../domain/timer.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { RunOutcome, TaskRepository } from '../storage/db/task-repository.js';
import { MicroBatcher } from '../storage/micro-batcher.js';
import type { FinalStatus, RunClaims } from '../storage/redis/run-claims.js';
import type { ReleaseGate } from './release-gate.js';
import type { RunRecorder } from './run-recorder.js';
import type { CachedTimer, TimerCache } from './timer-cache.js';

/** A run handed to the executor. */
export interface RunToExecute {
  timerId: number;
  runAt: number;
  slice: string;
  /** The timer version that planned the run: a cached copy older than that is re-read. */
  version?: number | undefined;
}

export type RunVerdict = TaskStatus | 'duplicate' | 'withdrawn';

export interface RunReport {
  verdict: RunVerdict;
  attempt?: number;
  httpStatus?: number | null;
  latencyMs?: number;
}

export interface RunExecutorDeps {
  claims: RunClaims;
  tasks: TaskRepository;
  cache: TimerCache;
  recorder: RunRecorder;
  caller: HttpCaller;
  gate: ReleaseGate;
  metrics: Metrics;
  /** True while Redis may have lost data recently (its "slices intact" marker went missing). */
  redisMayHaveLostData(): boolean;
  /** This process's claim token (`host:pid:random`). */
  owner: string;
  /** How a timer's app signs its callbacks (Standard Webhooks); absent: none are signed. */
  signing?: { forApp(app: string): Promise<CallSigning> } | undefined;
  logger: Logger;
  now(): number;
  sleep(ms: number): Promise<void>;
}

const LEASE_MARGIN_MS = 5000;
/** Longer than the run recorder takes to write a buffered outcome. */
const OUTCOME_SETTLE_MS = 1000;
/** The `slice` of runs the compensator queues. */
export const COMPENSATOR = 'compensator';

const schedules = new WeakMap<Timer, CronSchedule>();
function scheduleOf(timer: Timer): CronSchedule {
  let s = schedules.get(timer);
  if (!s) {
    s = parseCron(timer.cron, { allowYear: true });
    schedules.set(timer, s);
  }
  return s;
}

function truncate(s: string | null, max: number): string | null {
  return s === null || s.length <= max ? s : s.slice(0, max);
}

/**
 * Executes one run (SPEC §5.5): dedup (claim record → bloom → MySQL), atomic claim,
 * timer lookup and request building — all before the due instant — then waits on the
 * release gate, sends, retries, and records the outcome.
 */
export class RunExecutor {
  private readonly statusCheck: MicroBatcher<
    { timerId: number; runAt: number },
    { status: TaskStatus; leaseUntil: number | null } | null
  >;

  private executions = 0;

  constructor(private readonly d: RunExecutorDeps) {
    this.statusCheck = new MicroBatcher(async (runs) => {
      const found = await d.tasks.statuses(runs);
      return runs.map((r) => found.get(taskKey(r.timerId, r.runAt)) ?? null);
    }, 500);
  }

  async execute(run: RunToExecute): Promise<RunReport> {
    const d = this.d;
    const key = taskKey(run.timerId, run.runAt);
    const ref = { key, runAt: run.runAt };
    // Each execution is its own claimant: two copies of a run in one process (a job
    // queued again after Redis lost the first) must not pass for one another.
    const owner = `${d.owner}:${++this.executions}`;
    let cached = await d.cache.get(run.timerId);
    if (run.version !== undefined && (cached.timer?.version ?? 0) < run.version) {
      d.cache.invalidate(run.timerId);
      cached = await d.cache.get(run.timerId);
    }
    const timeoutMs = cached.timer?.callback.timeoutMs ?? 5000;
    const leaseMs = () => Math.max(0, run.runAt - d.now()) + timeoutMs + LEASE_MARGIN_MS;

    // 1. Claim (the claim record also says whether the run already finished).
    let claim = await d.claims.claim(ref, owner, leaseMs());
    while (claim.outcome === 'busy') {
      // Another executor holds it (a takeover while the first is alive, or it died):
      // wait for its lease to end, then look again.
      await d.sleep(Math.min(Math.max(claim.leaseUntil - d.now(), 0) + 50, 5000));
      claim = await d.claims.claim(ref, owner, leaseMs());
    }
    if (claim.outcome === 'done') {
      // The compensator re-queues runs MySQL still shows pending: if the outcome write was
      // lost (a process killed with it buffered), the claim record supplies it.
      if (run.slice === COMPENSATOR) d.recorder.record(this.outcome(run, claim.status, claim.attempt, {}));
      return this.duplicate('claim');
    }
    let attempt = claim.attempt;

    // 2. Beyond the claim record's memory: the bloom filter (asked with the claim), then MySQL.
    if (claim.bloom && claim.bloom !== 'no' && (await this.alreadyRan(run, claim.bloom))) {
      await d.claims.finish(ref, owner, attempt, 'succeeded');
      return this.duplicate('history');
    }

    // 3. Is the run still wanted?
    const early = this.decide(cached, run);
    if (early) return this.finish(run, key, owner, attempt, early, null);

    // 4. Prepare, then wait for the due millisecond.
    let call = prepareCall(cached.timer!, key, run.runAt, attempt, await this.signingOf(cached.timer!));
    if ((await d.gate.at(run.runAt)) === 'withdrawn') return this.withdraw(ref, owner, false);
    if (d.redisMayHaveLostData()) {
      // Redis lost its data lately (FLUSHDB, failover): another executor may have been
      // handed this run again meanwhile, and only one copy may go out. Check the claim
      // once more (one pipelined GET for all runs of this instant); normally skipped.
      const standing = await d.claims.verify(ref, owner);
      if (standing === 'taken') return this.duplicate('verify');
      if (standing === 'lost') {
        const again = await d.claims.claim(ref, owner, timeoutMs + LEASE_MARGIN_MS);
        if (again.outcome !== 'claimed') return this.duplicate('verify');
        attempt = again.attempt;
        call = withAttempt(call, attempt);
      }
    }
    if (cached.stale) {
      // Changed while waiting (a disable or an update): go by the timer as it is now.
      cached = await d.cache.get(run.timerId);
      const late = this.decide(cached, run);
      if (late) return this.finish(run, key, owner, attempt, late, null);
      call = prepareCall(cached.timer!, key, run.runAt, attempt, await this.signingOf(cached.timer!));
    }
    const timer = cached.timer!;

    // 5. Send, retrying what may succeed later.
    for (;;) {
      // The request goes out first; everything else waits until it has.
      const sending = d.caller.send(call);
      // Written only if the call is still in flight a second later (the result usually
      // replaces it first); then, should the process die, the compensator sees a lapsed lease.
      d.recorder.recordInFlight(
        this.outcome(run, 'running', attempt, {
          leaseUntil: d.now() + timer.callback.timeoutMs + LEASE_MARGIN_MS,
        }),
      );
      if (attempt > 1) d.metrics.retries.inc();
      const result = await sending;
      d.metrics.lateness.observe((result.sentAt - run.runAt) / 1000);
      d.metrics.callbackDuration.observe(result.durationMs / 1000);
      const maxAttempts = Math.max(timer.retry.maxAttempts, attempt);
      if (isSuccess(result) || !isRetryable(result) || attempt >= maxAttempts) {
        return this.finish(run, key, owner, attempt, isSuccess(result) ? 'succeeded' : 'failed', result);
      }
      const delay = retryDelayMs(
        timer.retry,
        attempt,
        result.kind === 'response' ? parseRetryAfter(result.retryAfter, d.now()) : null,
      );
      d.recorder.record(
        this.outcome(run, 'running', attempt, { result, leaseUntil: d.now() + delay + LEASE_MARGIN_MS }),
      );
      const due = d.now() + delay;
      if ((await d.gate.at(due)) === 'withdrawn') return this.withdraw(ref, owner, true);
      const next = await d.claims.claim(ref, owner, timer.callback.timeoutMs + LEASE_MARGIN_MS);
      if (next.outcome !== 'claimed') return { verdict: 'duplicate', attempt };
      attempt = next.attempt;
      call = withAttempt(call, attempt);
    }
  }

  private duplicate(stage: 'claim' | 'history' | 'verify'): RunReport {
    this.d.metrics.duplicates.inc({ stage });
    return { verdict: 'duplicate' };
  }

  private async signingOf(timer: Timer): Promise<CallSigning> {
    return this.d.signing ? this.d.signing.forApp(timer.app) : null;
  }

  /** Did this run already finish, though its claim record is gone? (the bloom filter said maybe, or could not tell) */
  private async alreadyRan(run: RunToExecute, seen: 'maybe' | 'unknown'): Promise<boolean> {
    const d = this.d;
    if (seen === 'unknown' && run.runAt < d.now()) {
      // Redis lost the filter and this overdue run is being fanned out again: give every
      // executor's buffered outcomes time to reach MySQL before asking it.
      await d.sleep(OUTCOME_SETTLE_MS);
    }
    const row = await this.statusCheck.load({ timerId: run.timerId, runAt: run.runAt }).catch(() => null);
    return row !== null && row.status !== 'pending' && row.status !== 'running';
  }

  /** Why a run must not be called, if it must not. */
  private decide(cached: CachedTimer, run: RunToExecute): 'skipped' | 'missed' | null {
    const timer = cached.timer;
    if (timer?.status !== 'active') return 'skipped';
    const decision = misfireDecision(
      timer.misfirePolicy,
      timer.misfireThresholdMs,
      run.runAt,
      this.d.now(),
      (at) => {
        const [next] = nextRuns(scheduleOf(timer), timer.timezone, at, 1);
        return next ?? null;
      },
    );
    return decision === 'missed' ? 'missed' : null;
  }

  private async finish(
    run: RunToExecute,
    key: string,
    owner: string,
    attempt: number,
    status: FinalStatus,
    result: CallResult | null,
  ): Promise<RunReport> {
    const d = this.d;
    // Skipped and missed runs made no call: their attempt count stays 0.
    const attempts = result === null ? attempt - 1 : attempt;
    d.recorder.record(this.outcome(run, status, attempts, { result }));
    d.metrics.runs.inc({ outcome: status });
    await d.claims.finish({ key, runAt: run.runAt }, owner, attempt, status);
    if (status === 'failed') {
      d.logger.warn(
        {
          taskKey: key,
          timerId: run.timerId,
          attempt,
          httpStatus: result?.kind === 'response' ? result.status : null,
          error: result?.kind === 'error' ? result.error : undefined,
        },
        'run failed',
      );
    }
    return {
      verdict: status,
      attempt: attempts,
      httpStatus: result?.kind === 'response' ? result.status : null,
      ...(result ? { latencyMs: result.sentAt - run.runAt } : {}),
    };
  }

  /** Shutdown: hands the run back (its job is retried elsewhere) without calling it now. */
  private async withdraw(
    ref: { key: string; runAt: number },
    owner: string,
    attemptMade: boolean,
  ): Promise<RunReport> {
    await this.d.claims.release(ref, owner, attemptMade);
    return { verdict: 'withdrawn' };
  }

  private outcome(
    run: RunToExecute,
    status: TaskStatus,
    attempts: number,
    extra: { result?: CallResult | null; leaseUntil?: number },
  ): RunOutcome {
    const r = extra.result ?? null;
    return {
      timerId: run.timerId,
      runAt: run.runAt,
      status,
      attempts,
      httpStatus: r?.kind === 'response' ? r.status : null,
      output: r?.kind === 'response' ? truncate(r.output, LIMITS.outputMaxChars) : null,
      error:
        r === null
          ? null
          : r.kind === 'error'
            ? truncate(r.error, LIMITS.errorMaxChars)
            : r.status >= 300
              ? `HTTP ${r.status}`
              : null,
      firedAt: r ? r.sentAt : null,
      durationMs: r ? r.durationMs : null,
      leaseUntil: extra.leaseUntil ?? null,
    };
  }
}
