import { misfireDecision } from '../../domain/plan/misfire.js';
import { MINUTE, minuteStart } from '../../domain/plan/slice.js';
import { taskKey } from '../../domain/plan/task-key.js';
import { scheduleOf } from '../../domain/schedule/timer-schedule.js';
import type { Timer } from '../../domain/timer.js';
import { groupBy } from '../../lib/group-by.js';
import type { Logger } from '../../observability/logger.js';
import type {
  OverdueCursor,
  OverdueRun,
  PendingRun,
  RunOutcome,
  StuckRun,
  TaskRepository,
} from '../../storage/db/tasks/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import { earliestQueuedDue, type QueuedRun, type Queues, requeueRuns } from '../../storage/redis/queues.js';
import {
  type ClaimRecord,
  callsMade,
  type FinalStatus,
  isFinished,
} from '../../storage/redis/runs/claim-record.js';
import type { OutcomeStash } from '../../storage/redis/runs/outcome-stash.js';
import type { RunClaims } from '../../storage/redis/runs/run-claims.js';
import { endedRunFields, endedRunLogOf } from '../firing/settle/ended-run-log.js';
import type { FailureNotifier } from '../notify/failure-notifier.js';

/**
 * Pending runs of minutes no scheduler scans any more (older than the previous minute)
 * were lost: their slice was never walked, or Redis lost it.
 */
export function lostBefore(now: number): number {
  return minuteStart(now) - MINUTE;
}
const BATCH = 2000;
/**
 * Pages of overdue pending runs one pass reads at most (20,000 runs): past a backlog's
 * runs, which it leaves to the queue, to the runs behind them it must settle (a finished
 * run whose outcome MySQL lost is recoverable only while its claim record lasts).
 */
const MAX_OVERDUE_PAGES = 10;
/** A lease counts as lapsed only this long after its end: the holder's clock may run a little behind Redis's. */
const LEASE_GRACE_MS = 2000;
/** A retry job may queue behind others: its backoff counts as abandoned only this long after it ended. */
const BACKOFF_GRACE_MS = 60_000;

export interface CompensationReport {
  refired: number;
  /** Pending in MySQL but finished by the claim record's account (an outcome write was lost). */
  recovered: number;
  missed: number;
  skipped: number;
  /** Runs whose holder is gone (lease lapsed, no heartbeat), queued again as their next attempt. */
  requeued: number;
  /** Timers whose schedule ended (endAt passed, or its final run settled) marked completed. */
  completed: number;
  /** Outcomes a process left in the stash (MySQL was away) written to MySQL. */
  unstashed: number;
}

export interface CompensatorDeps {
  timers: TimerRepository;
  tasks: TaskRepository;
  claims: RunClaims;
  queues: Queues;
  /** Writes final outcomes of runs that will not be called (inactive timers). */
  record(outcomes: RunOutcome[]): Promise<void>;
  /** Outcomes left in Redis by processes that could not write them: written before anything is judged. */
  stash?: Pick<OutcomeStash, 'drain'> | undefined;
  /** Reports missed runs to whoever asked (notify). */
  notifier?: Pick<FailureNotifier, 'report'> | undefined;
  /** Completes active timers whose schedule has ended and that have nothing left in flight. */
  completeEnded?(now: number): Promise<number>;
  logger: Logger;
}

/** What the claim record says of a run MySQL has not seen finish. */
type Verdict =
  | { kind: 'unclaimed' }
  | { kind: 'finished'; status: FinalStatus; attempt: number }
  /** Its holder is alive (renewing its lease), or its retry is still to come: leave it. */
  | { kind: 'held' }
  /**
   * Its holder is gone: queue it again after the `calls` it made. With none (it died
   * before calling), that is a fresh pick-up, under its misfire policy.
   */
  | { kind: 'abandoned'; calls: number };

function verdictOf(record: ClaimRecord | null, now: number): Verdict {
  if (record === null) return { kind: 'unclaimed' };
  if (isFinished(record.state)) return { kind: 'finished', status: record.state, attempt: record.attempt };
  const grace = record.state === 'backoff' ? BACKOFF_GRACE_MS : LEASE_GRACE_MS;
  return record.untilMs + grace < now ? { kind: 'abandoned', calls: callsMade(record) } : { kind: 'held' };
}

/**
 * The sweeper of the original xTimer design's "定时脚本" (timed script), run every 30 s by
 * one migrator. It never re-queues a run that is only late: a run whose holder is alive
 * is the holder's (leases are renewed by a heartbeat), however late it is. It settles
 * runs never fired (Redis lost, cluster down) by their timer's misfire policy; queues
 * again, as their next attempt, runs whose holder died (lease lapsed); recovers outcomes
 * MySQL lost from the claim records. (Old runs are dropped by day: HistoryRetention.)
 */
export class Compensator {
  constructor(private readonly d: CompensatorDeps) {}

  async run(now: number): Promise<CompensationReport> {
    const report: CompensationReport = {
      refired: 0,
      recovered: 0,
      missed: 0,
      skipped: 0,
      requeued: 0,
      completed: 0,
      unstashed: 0,
    };
    // A run whose outcome waits in the stash would pass for pending (and lost) in MySQL.
    if (this.d.stash) report.unstashed = await this.d.stash.drain((o) => this.d.record(o));
    await this.settlePending(now, report);
    await this.settleStuck(now, report);
    if (this.d.completeEnded) report.completed = await this.d.completeEnded(now);
    return report;
  }

  /** Runs still pending in minutes no longer walked, page by page. */
  private async settlePending(now: number, report: CompensationReport): Promise<void> {
    const queuedFrom = await earliestQueuedDue([this.d.queues.execute, this.d.queues.executeLate]);
    let after: OverdueCursor | undefined;
    for (let page = 0; page < MAX_OVERDUE_PAGES; page++) {
      const overdue = await this.d.tasks.overduePending(lostBefore(now), BATCH, after);
      await this.settleOverdue(overdue.runs, queuedFrom, now, report);
      if (overdue.next === null) return;
      after = overdue.next;
    }
  }

  /**
   * A run never claimed is lost only if the execute queue is not behind it (`queuedFrom`:
   * when the earliest run still queued was due). Past capacity, runs wait in the queue
   * unclaimed for minutes: a run waiting its turn is late, not lost, and queued again it
   * was queued twice, which made everything later still (an overload spiral).
   */
  private async settleOverdue(
    overdue: OverdueRun[],
    queuedFrom: number | null,
    now: number,
    report: CompensationReport,
  ): Promise<void> {
    if (overdue.length === 0) return;
    const verdicts = await this.verdicts(overdue, now);
    const lost: OverdueRun[] = [];
    const abandoned: QueuedRun[] = [];
    const recovered: RunOutcome[] = [];
    overdue.forEach((r, i) => {
      const v = verdicts[i]!;
      if (v.kind === 'unclaimed') {
        if (queuedFrom === null || r.runAt < queuedFrom) lost.push(r);
      } else if (v.kind === 'finished') recovered.push(recoveredOutcome(r, v));
      else if (v.kind === 'abandoned') abandoned.push({ ...queuedRunOf(r), afterAttempt: v.calls });
    });
    await this.recover(recovered, report);
    await this.requeue(abandoned, report);
    await this.settleLost(lost, now, report);
  }

  /** Runs MySQL shows running past their lease: the call's deadline, or the backoff's end. */
  private async settleStuck(now: number, report: CompensationReport): Promise<void> {
    const stuck = await this.d.tasks.pastLease(now, BATCH);
    if (stuck.length === 0) return;
    const verdicts = await this.verdicts(stuck, now);
    const abandoned: QueuedRun[] = [];
    const recovered: RunOutcome[] = [];
    stuck.forEach((r: StuckRun, i) => {
      const v = verdicts[i]!;
      const run = queuedRunOf(r);
      // No record: Redis lost it, and MySQL's lease has run out: the holder died too.
      if (v.kind === 'unclaimed') abandoned.push({ ...run, afterAttempt: r.attempts });
      else if (v.kind === 'finished') recovered.push(recoveredOutcome(r, v));
      else if (v.kind === 'abandoned')
        abandoned.push({ ...run, afterAttempt: Math.max(v.calls, r.attempts) });
    });
    await this.recover(recovered, report);
    await this.requeue(abandoned, report);
  }

  private async verdicts(runs: readonly PendingRun[], now: number): Promise<Verdict[]> {
    const records = await this.d.claims.peek(
      runs.map((r) => ({ key: taskKey(r.timerId, r.runAt), runAt: r.runAt })),
    );
    return records.map((record) => verdictOf(record, now));
  }

  private async recover(outcomes: RunOutcome[], report: CompensationReport): Promise<void> {
    if (outcomes.length === 0) return;
    await this.d.record(outcomes);
    report.recovered += outcomes.length;
  }

  private async requeue(runs: QueuedRun[], report: CompensationReport): Promise<void> {
    if (runs.length === 0) return;
    await this.enqueue(runs);
    report.requeued += runs.length;
    this.d.logger.warn({ runs: runs.length }, 'runs whose holder is gone queued again as their next attempt');
  }

  /**
   * Never-claimed runs: their timer's misfire policy decides (inactive timers: skipped).
   * A user's run now or retry is owed its call whatever the timer's status and however late.
   */
  private async settleLost(lost: OverdueRun[], now: number, report: CompensationReport): Promise<void> {
    if (lost.length === 0) return;
    const timers = new Map(
      (await this.d.timers.findByIds([...new Set(lost.map((r) => r.timerId))])).map((t) => [t.id, t]),
    );
    const fire: QueuedRun[] = lost.filter((r) => r.trigger !== 'schedule').map(queuedRunOf);
    const missed: PendingRun[] = [];
    const skipped: RunOutcome[] = [];
    const scheduled = lost.filter((r) => r.trigger === 'schedule');
    for (const [timerId, runs] of groupBy(scheduled, (r) => r.timerId)) {
      const timer = timers.get(timerId);
      // A completed timer's planned runs are still owed (see RunExecutor.whyNotCall).
      if (timer === undefined || timer.status === 'inactive') {
        for (const r of runs)
          skipped.push(settledOutcome(r, 'skipped', 0, 'skipped: timer not active when the run was settled'));
        continue;
      }
      const successor = successorFn(timer);
      for (const r of runs) {
        const decision = misfireDecision(
          timer.misfirePolicy,
          timer.misfireThresholdMs,
          r.runAt,
          now,
          successor,
        );
        if (decision === 'fire') fire.push(queuedRunOf(r));
        else missed.push(r);
      }
    }
    const reason = 'missed: never picked up before its misfire threshold (its slice was lost or walked late)';
    await this.d.tasks.settleUncalled(missed, 'missed', reason);
    for (const r of missed) {
      const timer = timers.get(r.timerId);
      if (!timer) continue;
      endedRunLogOf(this.d.logger).ended(
        'missed',
        endedRunFields(timer, taskKey(r.timerId, r.runAt), reason),
      );
      await this.d.notifier?.report(timer, 'missed', {
        runAt: r.runAt,
        attempts: 0,
        httpStatus: null,
        error: null,
      });
    }
    if (skipped.length > 0) await this.d.record(skipped);
    await this.enqueue(fire);
    report.refired += fire.length;
    report.missed += missed.length;
    report.skipped += skipped.length;
    if (fire.length + missed.length > 0) {
      this.d.logger.warn(
        { refired: fire.length, missed: missed.length },
        'lost runs settled by their misfire policy',
      );
    }
  }

  /**
   * Queues runs for execution, in the catch-up lane (they are overdue); a job of the same
   * attempt that ended is replaced, one still queued kept.
   */
  private async enqueue(runs: readonly QueuedRun[]): Promise<void> {
    await requeueRuns(this.d.queues.executeLate, runs);
  }
}

/** A run read from MySQL as a job carries it: what made it, when not its schedule, goes along. */
function queuedRunOf(r: OverdueRun): QueuedRun {
  const run: QueuedRun = { timerId: r.timerId, runAt: r.runAt, version: r.version };
  if (r.trigger !== 'schedule') run.trigger = r.trigger;
  return run;
}

/** A final outcome the compensator writes without a call of its own (no response to record). */
function settledOutcome(
  r: PendingRun,
  status: FinalStatus,
  attempts: number,
  error: string | null,
): RunOutcome {
  return {
    timerId: r.timerId,
    runAt: r.runAt,
    status,
    attempts,
    httpStatus: null,
    output: null,
    error,
    firedAt: null,
    durationMs: null,
    leaseUntil: null,
  };
}

/** The outcome a claim record kept; a skipped or missed run made no call at the attempt it claimed. */
function recoveredOutcome(r: PendingRun, v: { status: FinalStatus; attempt: number }): RunOutcome {
  const calls = v.status === 'skipped' || v.status === 'missed' ? v.attempt - 1 : v.attempt;
  // What the executor wrote is lost (it died with the write buffered): its claim record says how it ended.
  const reason =
    v.status === 'succeeded'
      ? null
      : `${v.status}: as its claim record says (the executor that settled it died before writing why)`;
  return settledOutcome(r, v.status, calls, reason);
}

function successorFn(timer: Timer): (runAt: number) => number | null {
  return (runAt) => scheduleOf(timer).next(runAt, 1)[0] ?? null;
}
