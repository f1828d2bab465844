import { type PreparedCall, prepareCall } from '../../callback/callback-request.js';
import type { CallResult, HttpCaller } from '../../callback/http-caller.js';
import { isRetryable, isSuccess, parseRetryAfter, retryDelayMs } from '../../callback/retry-policy.js';
import type { CallSigning } from '../../callback/webhook-signer.js';
import { withEarlier } from '../../domain/attempt-answers.js';
import { taskKey } from '../../domain/plan/task-key.js';
import type { OverlapPolicy, Timer } from '../../domain/timer.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RunState } from '../../storage/db/tasks/task-repository.js';
import type { QueuedRun } from '../../storage/redis/queues.js';
import type { FinalStatus } from '../../storage/redis/runs/claim-record.js';
import type { OverlapSlots } from '../../storage/redis/runs/overlap-slots.js';
import type { RunClaims } from '../../storage/redis/runs/run-claims.js';
import type { AppSlots } from './admission/app-slots.js';
import { pauseOf, whyNotCall } from './admission/call-judgement.js';
import type { RunBudget } from './admission/run-budget.js';
import { AttemptClaimer } from './attempt-claimer.js';
import type { Lease, LeaseKeeper } from './lease-keeper.js';
import type { Release, ReleaseGate } from './release/release-gate.js';
import {
  COMPENSATOR,
  duplicate,
  type Execution,
  type RunReport,
  type RunToExecute,
  type SettledRun,
} from './run-execution.js';
import { JobRuns, RunJob } from './run-job.js';
import { endedRunFields, endedRunLogOf } from './settle/ended-run-log.js';
import { attemptAnswerOf, callFacts, outcomeOf } from './settle/run-outcome.js';
import type { RunRecorder } from './settle/run-recorder.js';
import type { CachedTimer, TimerCache } from './timer-cache.js';

/** Where runs go when they leave this executor before they are done. */
export interface RunContinuations {
  /** Queues the run's next attempt to start after `delayMs` (its backoff). */
  retry(run: QueuedRun, delayMs: number): Promise<void>;
  /** Queues a run withdrawn unsent (shutdown) for another executor. */
  withdraw(run: QueuedRun): Promise<void>;
}

export interface RunExecutorDeps {
  claims: Pick<RunClaims, 'claim' | 'finish' | 'release' | 'backOff' | 'markCalling' | 'keepMs'>;
  leases: LeaseKeeper;
  /** A run's row in MySQL: asked only when the bloom filter cannot rule out that it ran. */
  history(runs: readonly QueuedRun[]): Promise<Map<string, RunState>>;
  cache: TimerCache;
  recorder: RunRecorder;
  caller: Pick<HttpCaller, 'send'>;
  gate: ReleaseGate;
  slots: AppSlots;
  /** Runs this process carries at once (EXECUTOR_MAX_RUNS); absent: no limit. */
  budget?: RunBudget | undefined;
  continuations: RunContinuations;
  /** The timers' overlap slots (overlapPolicy skip and buffer_one), shared by every executor. */
  overlap: Pick<OverlapSlots, 'holdRunning' | 'holdBuffered' | 'releaseRunning' | 'releaseBuffered'>;
  /** What a settled run means beyond itself: its timer's completion, a failure notification. */
  aftermath?: { settled(event: SettledRun): Promise<void> } | undefined;
  metrics: Metrics;
  /** True while Redis may have lost data recently (its "slices intact" marker went missing). */
  redisMayHaveLostData(): boolean;
  /** This process's claim token (`host:pid:random`). */
  owner: string;
  /** The pause of the whole service, while there is one (POST /api/v1/pause); absent: never paused. */
  paused?: (() => { note: string } | null) | undefined;
  /** How a timer's app signs its callbacks (Standard Webhooks); absent: none are signed. */
  signing?: { forApp(app: string): Promise<CallSigning> } | undefined;
  logger: Logger;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Whether a run would be called as things stand (RunExecutor.willCall). */
type Will = 'call' | 'settle' | 'drop';

/** How often a buffered run (overlapPolicy buffer_one) looks whether its predecessor is done. */
const OVERLAP_POLL_MS = 100;
/** A buffered run keeps its place this long between looks; a waiter that died frees it. */
const BUFFERED_TTL_MS = 10_000;

/** How often a run waiting for its app's slot renews its timer's in-flight slot (overlapPolicy). */
const OVERLAP_KEEP_MS = 1000;
/** MySQL's lease on a call in flight runs this long past the call's deadline. */
const IN_FLIGHT_LEASE_MARGIN_MS = 5000;
/** MySQL's lease on a run backing off runs this long past its retry time (the retry job may queue). */
const BACKOFF_LEASE_MARGIN_MS = 60_000;

/**
 * Executes one run: claim (the claim record also says whether it ran
 * already), history check, timer lookup and request building — all before the due
 * instant — then the wait for the due millisecond and for a slot of the run's app,
 * the fenced send, and the outcome: recorded, or handed to a retry job after a failure.
 * The claim is held under a lease the LeaseKeeper renews while the run is here.
 */
export class RunExecutor {
  private readonly claimer: AttemptClaimer;
  private executions = 0;
  /** Executions under way (some detached from their jobs), for the drain at shutdown. */
  private underway = 0;
  private readonly idle: Array<() => void> = [];
  /** Due time of each run claimed here and not yet sent. */
  private readonly unsent = new Map<Lease, number>();
  private calling = 0;

  constructor(private readonly d: RunExecutorDeps) {
    this.claimer = new AttemptClaimer(d);
  }

  /**
   * Resolves with each run's report when every run no longer needs its job: when it is
   * settled, handed to a retry job, or waiting for a slot of its app (it then goes on
   * here, detached). Rejects with the first run's failure, once every run has left.
   */
  executeAll(runs: readonly RunToExecute[]): Promise<RunReport[]> {
    const job = new JobRuns(runs.length);
    runs.forEach((run, i) => {
      this.underway++;
      void this.attend(run, new RunJob(job, i, this.d.budget));
    });
    return job.reports;
  }

  /** One run as its own job (executeAll). */
  async execute(run: RunToExecute): Promise<RunReport> {
    const [report] = await this.executeAll([run]);
    return report as RunReport;
  }

  /**
   * A run from its admission until it waits for its due millisecond, claimed and its
   * call prepared. It then waits on the gate as its Execution and a callback, with no
   * async frame suspended: an instant's thousands wait at once, and what each holds is
   * copied by every young collection.
   */
  private async attend(run: RunToExecute, job: RunJob): Promise<void> {
    let x: Execution | null = null;
    let waiting = false;
    try {
      const admitted = await this.admit(run, job);
      if ('verdict' in admitted) {
        job.leave(admitted);
        return;
      }
      x = admitted;
      const due = this.isDue(x.run);
      const early = whyNotCall(this.d, x.cached, x.run, due);
      // Settled ahead of its time, its finished claim would turn away the run an edit
      // puts back before then (the same task key): only a deleted timer is past undoing.
      if (early && (due || x.cached.timer === null)) {
        job.leave(await this.settle(x, early.status, null, early.reason));
        return;
      }
      x.judgeAtTime = early !== null;
      const call = await this.prepare(x.cached.timer as Timer, x);
      const claimed = x;
      this.d.gate.hold(x.run.runAt, (release) => void this.resume(claimed, job, call, release));
      waiting = true;
    } catch (err) {
      await this.failed(run, x, job, err);
    } finally {
      if (!waiting) this.ended(x);
    }
  }

  /** The run released by the gate (or withdrawn from it), carried on to its report. */
  private async resume(x: Execution, job: RunJob, call: PreparedCall, release: Release): Promise<void> {
    try {
      job.leave(release === 'withdrawn' ? await this.withdraw(x) : await this.onTime(x, job, call));
    } catch (err) {
      await this.failed(x.run, x, job, err);
    } finally {
      this.ended(x);
    }
  }

  /**
   * Admission and claim: the report of a run that ends here, or its Execution. A run
   * that will not be called (its timer disabled, the service paused, past its misfire
   * threshold) needs no permit: a backlog of such runs is settled at once, not in turn
   * behind the runs that are called.
   */
  private async admit(run: RunToExecute, job: RunJob): Promise<Execution | RunReport> {
    const judged = this.willCall(run);
    const will = typeof judged === 'string' ? judged : await judged;
    if (will === 'drop') {
      this.d.metrics.runs.inc({ outcome: 'skipped' });
      return { verdict: 'skipped' };
    }
    if (this.d.budget && will === 'call') {
      // Shutdown before it got a permit: unclaimed, its job goes back to the queue.
      if (!(await this.d.budget.take())) return { verdict: 'withdrawn' };
      job.permit = true;
    }
    const ref = { key: taskKey(run.timerId, run.runAt), runAt: run.runAt };
    // Each execution is its own claimant: two copies of a run in one process (a job
    // queued again after Redis lost the first) must not pass for one another.
    const owner = `${this.d.owner}:${++this.executions}`;
    const cached = this.heldTimerOf(run) ?? (await this.timerOf(run));
    const lease = await this.claimer.claim(run, ref, owner);
    if ('verdict' in lease) return lease;
    // A backfill's runs are past by design: they are not overdue.
    if (run.trigger !== 'backfill') this.unsent.set(lease, run.runAt);
    return {
      // Claimed past attempt 1, calls were made before (its job came back after its holder
      // died): it is a continuation, whatever its job says.
      run:
        lease.attempt > 1
          ? { ...run, afterAttempt: Math.max(run.afterAttempt ?? 0, lease.attempt - 1) }
          : run,
      ref,
      owner,
      lease,
      cached,
      detached: false,
      holdsOverlap: false,
      sent: false,
      judgeAtTime: false,
    };
  }

  /**
   * A run that failed: an attempt that made no call is withdrawn, so the job's next try
   * claims the run again at once (held until its lease lapsed, it would wait for the
   * compensator, minutes later); then its job fails, or, detached, it is logged.
   */
  private async failed(run: RunToExecute, x: Execution | null, job: RunJob, err: unknown): Promise<void> {
    if (x && !x.sent && !x.detached) await this.claimer.withdraw(x.lease);
    if (!job.fail(err))
      this.d.logger.error(
        { taskKey: taskKey(run.timerId, run.runAt), err: (err as Error).message },
        'detached run failed; its lease lapses and the compensator queues it again',
      );
  }

  /** A run's execution is over here: its claim is no longer renewed or counted as unsent. */
  private ended(x: Execution | null): void {
    if (x) {
      this.unsent.delete(x.lease);
      this.d.leases.drop(x.lease);
    }
    if (--this.underway === 0) for (const idle of this.idle.splice(0)) idle();
  }

  /**
   * Whether the run would be called as things stand (`call`; a failed look says so too:
   * it is then judged after its claim), is to be settled without a call (`settle`), or
   * needs nothing at all (`drop`): a scheduled run, never attempted, of a timer disabled
   * or deleted, whose row the disable (RunStopper) or the delete has dealt with already.
   */
  private willCall(run: RunToExecute): Will | Promise<Will> {
    const held = this.heldTimerOf(run);
    if (held) return this.judge(run, held);
    return this.timerOf(run).then(
      (cached) => this.judge(run, cached),
      () => 'call' as const,
    );
  }

  private judge(run: RunToExecute, cached: CachedTimer): Will {
    try {
      const timer = cached.timer;
      // A copy the compensator queued again is settled through its claim: its holder died.
      const fresh = run.trigger === undefined && (run.afterAttempt ?? 0) === 0 && run.slice !== COMPENSATOR;
      if (fresh && (timer === null || timer.status === 'inactive')) return 'drop';
      const due = this.isDue(run);
      if (whyNotCall(this.d, cached, run, due) === null) return 'call';
      // Not due yet, for a reason an edit may still undo: it waits for its time as a call would.
      return due || timer === null ? 'settle' : 'call';
    } catch {
      return 'call';
    }
  }

  /** Whether the run's time has come: a backlog is judged at once, a run picked up ahead of its time at that time. */
  private isDue(run: RunToExecute): boolean {
    return run.runAt <= this.d.now();
  }

  /** Waits for every execution under way, detached ones included (shutdown, after the gate and slots closed). */
  async drain(): Promise<void> {
    while (this.underway > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  /** Calls sent and not answered yet. */
  get callsInFlight(): number {
    return this.calling;
  }

  /** When the longest-overdue run claimed here and not yet sent was due (null if none is overdue). */
  oldestUnsentDue(): number | null {
    const now = this.d.now();
    let oldest: number | null = null;
    for (const runAt of this.unsent.values())
      if (runAt <= now && (oldest === null || runAt < oldest)) oldest = runAt;
    return oldest;
  }

  /** The timer as cached, re-read when the run was planned for a newer version than the cached one. */
  private timerOf(run: RunToExecute): Promise<CachedTimer> {
    return this.d.cache.get(run.timerId, run.version ?? 0);
  }

  /** The timer as cached when no read is needed (most runs): taken without an await. */
  private heldTimerOf(run: RunToExecute): CachedTimer | undefined {
    return this.d.cache.peek(run.timerId, run.version ?? 0);
  }

  /** From the due millisecond: the run's overlap slot and app slot, the fence, the call. */
  private async onTime(x: Execution, job: RunJob, prepared: PreparedCall): Promise<RunReport> {
    const d = this.d;
    let call = prepared;
    if (x.judgeAtTime) {
      // Held back when picked up: judged again, by the timer as it is now, before any slot.
      x.cached = await d.cache.get(x.run.timerId);
      const still = whyNotCall(d, x.cached, x.run);
      if (still) return this.settle(x, still.status, null, still.reason);
      call = await this.prepare(x.cached.timer as Timer, x);
    }
    const timer = x.cached.timer as Timer;
    // Decided without an await where nothing need be waited for: an instant's thousands of
    // runs leave the gate together, and every await here delays the first call of them all.
    const overlap =
      overlapPolicyOf(timer, x.run) === 'allow' ? 'go' : await this.awaitOverlapSlot(x, timer, job);
    if (overlap === 'withdrawn') return this.withdraw(x);
    if (overlap === 'skip') {
      return this.settle(
        x,
        'skipped',
        null,
        'skipped: overlap (the previous run of the timer is still in flight)',
      );
    }
    if (!d.slots.tryTake(timer.app)) {
      const waited = await this.awaitAppSlot(x, timer, job);
      if (waited === 'withdrawn') return this.withdraw(x);
      if (waited === 'overlap') {
        d.slots.give(timer.app);
        return this.settle(x, 'skipped', null, 'skipped: overlap (another run of the timer took its slot)');
      }
    }
    try {
      if (!(this.surelyHeld(x) || (await this.stillHeld(x)))) {
        await this.releaseOverlap(x);
        return duplicate(this.d.metrics, 'fenced');
      }
      if (x.cached.stale || x.detached) {
        // Changed while it waited (a disable, an update), or it waited long for its app:
        // go by the timer as it is now, and by the time it is now.
        x.cached = await d.cache.get(x.run.timerId);
        const late = whyNotCall(this.d, x.cached, x.run);
        if (late) return this.settle(x, late.status, null, late.reason);
        call = await this.prepare(x.cached.timer as Timer, x);
      }
      // The pause is judged at the run's time: one that began while it waited holds it,
      // one that ended lets it go, each within a look rather than a preread later.
      const paused = pauseOf(this.d, x.run);
      if (paused) return this.settle(x, paused.status, null, paused.reason);
      // Noted before the call goes out, so a takeover never repeats an attempt number; a
      // holder that dies between the two leaves a gap in them, not a second attempt 1.
      // Its answer is a fence where the lease is not surely held; where it is, the lease
      // is the fence and the call waits only for the mark to be on its way (an instant's
      // thousands of marks keep Redis busy for tens of ms). Unreachable Redis does not
      // stop the call: the lease does.
      const mark = d.claims.markCalling(x.ref, x.owner, x.lease.attempt, x.lease.validUntil);
      if (this.surelyHeld(x)) {
        await mark.sent;
        void mark.answer.then(
          (held) => held || this.calledUnheld(x),
          () => undefined,
        );
      } else if (!(await mark.answer.catch(() => true))) {
        await this.releaseOverlap(x);
        return duplicate(this.d.metrics, 'fenced');
      }
      this.unsent.delete(x.lease);
      x.sent = true;
      return await this.send(x, x.cached.timer as Timer, call);
    } finally {
      d.slots.give(timer.app);
    }
  }

  /**
   * The run's overlap policy (overlapPolicyOf): `skip` skips a run whose predecessor
   * (retries included) is still in flight anywhere in the cluster; `buffer_one` lets one
   * run wait for it, detached from its job, and skips the rest; `allow` goes on at once.
   */
  private async awaitOverlapSlot(
    x: Execution,
    timer: Timer,
    job: RunJob,
  ): Promise<'go' | 'skip' | 'withdrawn'> {
    const d = this.d;
    const policy = overlapPolicyOf(timer, x.run);
    if (policy === 'allow') return 'go';
    const ttl = timer.callback.timeoutMs + IN_FLIGHT_LEASE_MARGIN_MS;
    if (await d.overlap.holdRunning(timer.id, x.ref.key, ttl)) {
      x.holdsOverlap = true;
      return 'go';
    }
    // A continuation was let through once and keeps its retries: a slot another run took
    // meanwhile (its own lapsed while the retry waited behind a backlog or its holder was
    // taken over) cannot skip it, but it waits for that run rather than call beside it.
    if ((x.run.afterAttempt ?? 0) > 0) return this.awaitRunningSlot(x, timer, job, ttl);
    if (policy === 'skip') return 'skip';
    if (!(await d.overlap.holdBuffered(timer.id, x.ref.key, BUFFERED_TTL_MS))) return 'skip';
    this.detach(x, job);
    return this.waitingForTheRunBefore(x, async () => {
      for (;;) {
        await d.sleep(OVERLAP_POLL_MS);
        if (d.gate.closed) {
          await d.overlap.releaseBuffered(timer.id, x.ref.key);
          return 'withdrawn';
        }
        if (await d.overlap.holdRunning(timer.id, x.ref.key, ttl)) {
          x.holdsOverlap = true;
          await d.overlap.releaseBuffered(timer.id, x.ref.key);
          return 'go';
        }
        // Its place lapsed (a stall of more than its time to live) and another run waits there now.
        if (!(await d.overlap.holdBuffered(timer.id, x.ref.key, BUFFERED_TTL_MS))) return 'skip';
      }
    });
  }

  /**
   * A run waiting for its timer's run before it (buffer_one, or a retry whose place another
   * run took) is not behind this executor: out of the oldest-due gauge meanwhile, which
   * would read a slow receiver as a backlog.
   */
  private async waitingForTheRunBefore<T>(x: Execution, wait: () => Promise<T>): Promise<T> {
    const due = this.unsent.get(x.lease);
    this.unsent.delete(x.lease);
    try {
      return await wait();
    } finally {
      // Overdue from here on only: the wait for its app's slot that may follow is counted.
      if (due !== undefined) this.unsent.set(x.lease, Math.max(due, this.d.now()));
    }
  }

  /** Waits, detached from its job, until the timer's in-flight slot is free, and takes it. */
  private async awaitRunningSlot(
    x: Execution,
    timer: Timer,
    job: RunJob,
    ttl: number,
  ): Promise<'go' | 'withdrawn'> {
    this.detach(x, job);
    return this.waitingForTheRunBefore(x, async () => {
      for (;;) {
        await this.d.sleep(OVERLAP_POLL_MS);
        if (this.d.gate.closed) return 'withdrawn';
        if (await this.d.overlap.holdRunning(timer.id, x.ref.key, ttl)) {
          x.holdsOverlap = true;
          return 'go';
        }
      }
    });
  }

  private async releaseOverlap(x: Execution): Promise<void> {
    if (!x.holdsOverlap) return;
    x.holdsOverlap = false;
    await this.d.overlap.releaseRunning(x.run.timerId, x.ref.key);
  }

  /**
   * Takes a slot of the app's in-flight limit. When none is free the run leaves its
   * job ('deferred') and waits here: `withdrawn` if it was told to give up (shutdown).
   * A run holding its timer's in-flight slot keeps it renewed meanwhile: the slot lapses
   * a call's timeout after it was taken, and the app's slots can be busy far longer (its
   * receivers hang). `overlap` if another run took it all the same (Redis lost it).
   */
  private async awaitAppSlot(
    x: Execution,
    timer: Timer,
    job: RunJob,
  ): Promise<'taken' | 'withdrawn' | 'overlap'> {
    this.detach(x, job);
    if (!x.holdsOverlap) return (await this.d.slots.take(timer.app)) ? 'taken' : 'withdrawn';
    const ttl = timer.callback.timeoutMs + IN_FLIGHT_LEASE_MARGIN_MS;
    const keep = () => this.d.overlap.holdRunning(timer.id, x.ref.key, ttl);
    const keeping = setInterval(() => void keep().catch(() => undefined), OVERLAP_KEEP_MS);
    let taken: boolean;
    try {
      taken = await this.d.slots.take(timer.app);
    } finally {
      clearInterval(keeping);
    }
    if (!taken) return 'withdrawn';
    // A continuation keeps its retries whoever holds the slot (awaitOverlapSlot).
    if ((await keep()) || (x.run.afterAttempt ?? 0) > 0) return 'taken';
    x.holdsOverlap = false;
    return 'overlap';
  }

  /** Lets go of the run's job while it waits here (its claim still says it has not called). */
  private detach(x: Execution, job: RunJob): void {
    x.detached = true;
    job.leave({ verdict: 'deferred' });
  }

  /**
   * Fencing before the call goes out: the lease must still be this execution's. Known
   * here while it is neither lost, nor near its end, nor Redis suspect of losing data;
   * otherwise Redis is asked (and a renewal after a loss writes the record again).
   */
  private surelyHeld({ lease }: Execution): boolean {
    return !lease.lost && this.d.now() < lease.validUntil && !this.d.redisMayHaveLostData();
  }

  /** The mark found another holder after the call went out: the lease and Redis disagreed. */
  private calledUnheld(x: Execution): void {
    this.d.logger.error(
      { run: x.ref.key, attempt: x.lease.attempt },
      'called a run whose claim another holder had taken: the lease held here, not in Redis (clocks apart?)',
    );
  }

  /** Asked of Redis where the lease is not surely held: a renewal says whether it still is. */
  private async stillHeld(x: Execution): Promise<boolean> {
    return !x.lease.lost && (await this.d.leases.confirm(x.lease));
  }

  private async prepare(timer: Timer, x: Execution): Promise<PreparedCall> {
    const signing = this.d.signing ? await this.d.signing.forApp(timer.app) : null;
    return prepareCall(timer, x.ref.key, x.run.runAt, x.lease.attempt, signing, x.run.trigger ?? 'schedule');
  }

  /** Sends the attempt; then records the outcome, or backs off and queues the retry. */
  private async send(x: Execution, timer: Timer, call: PreparedCall): Promise<RunReport> {
    const d = this.d;
    const attempt = x.lease.attempt;
    const sentAt = d.now();
    const sending = d.caller.send(call);
    // Written only if the call is still in flight a second later (the result usually
    // replaces it first); its lease bounds the call, whose timeout is a hard deadline.
    d.recorder.recordInFlight(x.ref.key, () =>
      outcomeOf(x.run, 'running', attempt, {
        leaseUntil: sentAt + call.timeoutMs + IN_FLIGHT_LEASE_MARGIN_MS,
        sentAt,
      }),
    );
    if (attempt > 1) d.metrics.retries.inc();
    this.calling++;
    const result = await sending.finally(() => this.calling--);
    // A run's first call only: a retry's wait is its backoff or the user's asking (a user's
    // retry of a missed run is its first call), and a backfill's instants are past by design.
    if (attempt === 1 && x.run.trigger !== 'backfill' && x.run.trigger !== 'retry')
      d.metrics.lateness.observe((result.sentAt - x.run.runAt) / 1000);
    d.metrics.callbackDuration.observe(result.durationMs / 1000);
    const maxAttempts = Math.max(timer.retry.maxAttempts, attempt);
    if (isSuccess(result) || !isRetryable(result) || attempt >= maxAttempts) {
      return this.settle(x, isSuccess(result) ? 'succeeded' : 'failed', result, null);
    }
    return this.backOff(x, timer, result);
  }

  /** Hands the run to a retry job after its backoff: no slot, no lease is held meanwhile. */
  private async backOff(x: Execution, timer: Timer, result: CallResult): Promise<RunReport> {
    const d = this.d;
    const attempt = x.lease.attempt;
    const delay = retryDelayMs(
      timer.retry,
      attempt,
      result.kind === 'response' ? parseRetryAfter(result.retryAfter, d.now()) : null,
    );
    d.recorder.record(
      outcomeOf(x.run, 'running', attempt, {
        result,
        leaseUntil: d.now() + delay + BACKOFF_LEASE_MARGIN_MS,
      }),
    );
    const retryAt = await d.claims.backOff(x.ref, x.owner, attempt, delay);
    // Taken over meanwhile (this holder looked dead): the new holder carries the run on.
    if (retryAt === null) return duplicate(this.d.metrics, 'fenced');
    // The run stays in flight for its overlap policy until its retries are done.
    if (x.holdsOverlap) {
      await d.overlap.holdRunning(
        timer.id,
        x.ref.key,
        delay + timer.callback.timeoutMs + IN_FLIGHT_LEASE_MARGIN_MS,
      );
    }
    const { timerId, runAt, version, trigger, overlapPolicy } = x.run;
    // The next attempt's outcome overwrites this one's columns: it carries this answer on.
    const earlier = withEarlier(x.run.earlier, attemptAnswerOf(attempt, result));
    await d.continuations.retry(
      { timerId, runAt, version, afterAttempt: attempt, trigger, overlapPolicy, earlier },
      delay,
    );
    return { verdict: 'retrying', ...callFacts(x.run, attempt, result) };
  }

  /** Records a final outcome, and in the claim record if this execution still holds the attempt. */
  private async settle(
    x: Execution,
    status: FinalStatus,
    result: CallResult | null,
    reason: string | null,
  ): Promise<RunReport> {
    const d = this.d;
    const attempt = x.lease.attempt;
    // Skipped and missed runs made no call: their attempt count stays that of calls made.
    const attempts = result === null ? attempt - 1 : attempt;
    const outcome = outcomeOf(x.run, status, attempts, { result, error: reason });
    d.recorder.record(outcome);
    // No heartbeat from here on: the finish ends the lease.
    d.leases.drop(x.lease);
    const finished = await d.claims.finish(x.ref, x.owner, attempt, status);
    // Counted by the holder that finished it: one taken over is the new holder's to count.
    if (finished) d.metrics.runs.inc({ outcome: status });
    await this.releaseOverlap(x);
    // Not finished here: another holder took the run over (this one froze past its lease),
    // and its notice, completion and failure count are that holder's to give.
    const timer = finished ? x.cached.timer : null;
    if (timer && d.aftermath) {
      await d.aftermath
        .settled({
          timer,
          run: x.run,
          status,
          attempts,
          httpStatus: outcome.httpStatus,
          error: outcome.error,
        })
        .catch((err) =>
          d.logger.warn({ taskKey: x.ref.key, err: (err as Error).message }, 'run aftermath failed'),
        );
    }
    if ((status === 'failed' || status === 'missed') && timer) {
      endedRunLogOf(d.logger).ended(status, { ...endedRunFields(timer, x.ref.key, outcome.error), attempts });
    }
    return { verdict: status, ...callFacts(x.run, attempts, result) };
  }

  /** Shutdown: the run is withdrawn unsent, its attempt undone; a detached run is queued again for another executor. */
  private async withdraw(x: Execution): Promise<RunReport> {
    await this.releaseOverlap(x);
    await this.d.claims.release(x.ref, x.owner, x.lease.attempt, { attemptMade: false });
    if (x.detached) {
      const { timerId, runAt, version, afterAttempt, trigger, overlapPolicy, earlier } = x.run;
      await this.d.continuations.withdraw({
        timerId,
        runAt,
        version,
        afterAttempt,
        trigger,
        overlapPolicy,
        earlier,
      });
    }
    return { verdict: 'withdrawn' };
  }
}

/**
 * The overlap policy a run follows: its timer's for scheduled runs; for a backfill's, the
 * one the backfill asked for (sharing the timer's slot), else `allow`, so a backfill never
 * gets in the way of the timer's scheduled runs unless asked to; a run now or a retry, a
 * user's explicit ask, goes at once.
 */
function overlapPolicyOf(timer: Timer, run: RunToExecute): OverlapPolicy {
  if (run.trigger === undefined) return timer.overlapPolicy;
  if (run.trigger === 'backfill') return run.overlapPolicy ?? 'allow';
  return 'allow';
}
