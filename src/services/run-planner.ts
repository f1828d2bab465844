import { expandRuns, parseCron } from '../domain/cron-schedule.js';
import { planHorizon } from '../domain/migration-window.js';
import type { Timer } from '../domain/timer.js';
import type { PlannedRun, TaskRepository } from '../storage/db/task-repository.js';
import type { TimerRepository } from '../storage/db/timer-repository.js';
import { type ExecuteJob, executeJobs } from '../storage/redis/queues.js';
import type { SliceStore } from '../storage/redis/slice-store.js';

/** Queues execute jobs (the execute queue's addBulk). */
export type Dispatch = (jobs: ExecuteJob[]) => Promise<unknown>;

/**
 * Materialises a single timer's runs (MySQL rows, then slice entries) and cancels
 * them. The migrator does the same for all timers at once, in bulk.
 */
export class RunPlanner {
  constructor(
    private readonly slices: SliceStore,
    private readonly stepMinutes: number,
    private readonly prereadMs: number,
    private readonly dispatch: Dispatch,
  ) {}

  /** Where materialisation stops when a timer is planned at `nowMs`: the end of the next window. */
  horizon(nowMs: number): number {
    return planHorizon(nowMs, this.stepMinutes);
  }

  /**
   * Plans `timer`'s runs in [fromMs, horizon) through `tasks` and `timers` (a
   * transaction's, usually) and records how far they now reach.
   */
  async plan(
    timer: Timer,
    fromMs: number,
    tasks: TaskRepository,
    timers: TimerRepository,
  ): Promise<PlannedRun[]> {
    const until = this.horizon(fromMs);
    const runAts = expandRuns(parseCron(timer.cron, { allowYear: true }), timer.timezone, fromMs, until);
    const runs = runAts.map((runAt) => ({ timerId: timer.id, app: timer.app, runAt }));
    await tasks.insertRuns(runs);
    await this.slices.addRuns(runs);
    await timers.setPlannedUntil([timer.id], until);
    return runs;
  }

  /**
   * Queues, straight into `execute`, the planned runs so close that the trigger may
   * already have read their slice window (it reads PREREAD_MS ahead). Call it after
   * the plan is committed. The executor's claim keeps the trigger's copy from doubling it.
   */
  async dispatchImminent(timer: Timer, runs: readonly PlannedRun[], nowMs: number): Promise<void> {
    const soon = nowMs + this.prereadMs + 1000;
    const imminent = runs
      .filter((r) => r.runAt < soon)
      .map((r) => ({ timerId: r.timerId, runAt: r.runAt, version: timer.version }));
    if (imminent.length > 0) await this.dispatch(executeJobs(imminent, 'planner'));
  }

  /** Cancels `timerId`'s pending runs due at or after `fromMs`. */
  async cancel(timerId: number, fromMs: number, tasks: TaskRepository): Promise<number> {
    const runAts = await tasks.deletePending(timerId, fromMs);
    await this.slices.removeRuns(runAts.map((runAt) => ({ timerId, runAt })));
    return runAts.length;
  }
}
