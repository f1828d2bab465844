import { type CronSchedule, nextRuns, parseCron } from '../domain/cron-schedule.js';
import { groupBy } from '../domain/group-by.js';
import { misfireDecision } from '../domain/misfire.js';
import { MINUTE, minuteStart } from '../domain/slice.js';
import { taskKey } from '../domain/task-key.js';
import { TASK_STATUSES, type Timer } from '../domain/timer.js';
import type { Logger } from '../observability/logger.js';
import type { PendingRun, RunOutcome, TaskRepository } from '../storage/db/task-repository.js';
import type { TimerRepository } from '../storage/db/timer-repository.js';
import { type Queues, runJob } from '../storage/redis/queues.js';
import type { FinalStatus, RunClaims } from '../storage/redis/run-claims.js';
import { COMPENSATOR } from './run-executor.js';

/**
 * Pending runs of minutes no scheduler scans any more (older than the previous minute)
 * were lost: their slice was never walked, or Redis lost it.
 */
export function lostBefore(now: number): number {
  return minuteStart(now) - MINUTE;
}
const BATCH = 2000;
const PURGE_BATCH = 1000;
const PURGE_ROUNDS = 10;

export interface CompensationReport {
  refired: number;
  /** Pending in MySQL but finished by the claim record's account (an outcome write was lost). */
  recovered: number;
  missed: number;
  skipped: number;
  requeued: number;
  purged: number;
}

export interface CompensatorDeps {
  timers: TimerRepository;
  tasks: TaskRepository;
  claims: RunClaims;
  queues: Queues;
  /** Writes final outcomes of runs that will not be called (inactive timers). */
  record(outcomes: RunOutcome[]): Promise<void>;
  retentionDays: number;
  logger: Logger;
}

/**
 * The sweeper of seed 002's "定时脚本" (SPEC §5.6), run every 30 s by one migrator:
 * runs never fired (Redis lost, cluster down) get their timer's misfire policy; runs
 * whose executor died mid-call are queued again; old rows are purged in small batches.
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
      purged: 0,
    };
    await this.settleLostRuns(now, report);
    await this.requeueStuckRuns(now, report);
    report.purged = await this.purge(now);
    return report;
  }

  private async settleLostRuns(now: number, report: CompensationReport): Promise<void> {
    const overdue = await this.d.tasks.overdue('pending', lostBefore(now), BATCH);
    if (overdue.length === 0) return;
    // A run MySQL still shows pending may have run after all, its outcome lost with a
    // killed process's write buffer: its claim record knows. Only runs without one are lost.
    const records = await this.d.claims.peek(
      overdue.map((r) => ({ key: taskKey(r.timerId, r.runAt), runAt: r.runAt })),
    );
    const lost: PendingRun[] = [];
    const recovered: RunOutcome[] = [];
    // Claimed by an executor that died before MySQL heard of the call (an in-flight state
    // is written only after a second): its lease has lapsed, so call it again.
    const abandoned: PendingRun[] = [];
    overdue.forEach((r, i) => {
      const record = records[i];
      if (!record) lost.push(r);
      else if (record.state !== 'running')
        recovered.push(settledOutcome(r, record.state, record.attempt, null));
      else if (record.leaseUntil < now) abandoned.push(r);
    });
    if (recovered.length > 0) {
      await this.d.record(recovered);
      report.recovered += recovered.length;
    }
    if (abandoned.length > 0) {
      await this.enqueue(abandoned);
      report.requeued += abandoned.length;
    }
    if (lost.length === 0) return;
    const timers = new Map(
      (await this.d.timers.findByIds([...new Set(lost.map((r) => r.timerId))])).map((t) => [t.id, t]),
    );
    const fire: PendingRun[] = [];
    const missed: PendingRun[] = [];
    const skipped: RunOutcome[] = [];
    for (const [timerId, runs] of groupBy(lost, (r) => r.timerId)) {
      const timer = timers.get(timerId);
      if (timer?.status !== 'active') {
        for (const r of runs)
          skipped.push(settledOutcome(r, 'skipped', 0, 'timer not active when the run was settled'));
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
        (decision === 'fire' ? fire : missed).push(r);
      }
    }
    await this.d.tasks.markMissed(missed);
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

  private async requeueStuckRuns(now: number, report: CompensationReport): Promise<void> {
    const stuck = await this.d.tasks.overdue('running', now, BATCH);
    if (stuck.length === 0) return;
    await this.enqueue(stuck);
    report.requeued += stuck.length;
    this.d.logger.warn({ runs: stuck.length }, 'runs stuck running past their lease queued again');
  }

  /** Queues runs for execution; a job of the same run that ended (failed) is replaced. */
  private async enqueue(runs: PendingRun[]): Promise<void> {
    for (const r of runs) {
      const key = taskKey(r.timerId, r.runAt);
      const existing = await this.d.queues.execute.getJob(key);
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed') continue;
        await existing.remove();
      }
      const job = runJob(r.timerId, r.runAt, COMPENSATOR);
      await this.d.queues.execute.add(job.name, job.data, job.opts);
    }
  }

  private async purge(now: number): Promise<number> {
    const cutoff = now - this.d.retentionDays * 24 * 3600_000;
    let purged = 0;
    for (const status of TASK_STATUSES) {
      for (let round = 0; round < PURGE_ROUNDS; round++) {
        const n = await this.d.tasks.purge(status, cutoff, PURGE_BATCH);
        purged += n;
        if (n < PURGE_BATCH) break;
      }
    }
    return purged;
  }
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

function successorFn(timer: Timer): (runAt: number) => number | null {
  let schedule: CronSchedule | null = null;
  return (runAt) => {
    schedule ??= parseCron(timer.cron, { allowYear: true });
    return nextRuns(schedule, timer.timezone, runAt, 1)[0] ?? null;
  };
}
