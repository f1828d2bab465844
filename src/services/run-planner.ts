import { expandRuns, parseCron } from '../domain/cron-schedule.js';
import { planHorizon } from '../domain/migration-window.js';
import type { Timer } from '../domain/timer.js';
import type { TaskRepository } from '../storage/db/task-repository.js';
import type { TimerRepository } from '../storage/db/timer-repository.js';
import type { SliceStore } from '../storage/redis/slice-store.js';

/**
 * Materialises a single timer's runs (MySQL rows, then slice entries) and cancels
 * them. The migrator does the same for all timers at once, in bulk.
 */
export class RunPlanner {
  constructor(
    private readonly slices: SliceStore,
    private readonly stepMinutes: number,
  ) {}

  /** Where materialisation stops when a timer is planned at `nowMs`: the end of the next window. */
  horizon(nowMs: number): number {
    return planHorizon(nowMs, this.stepMinutes);
  }

  /**
   * Plans `timer`'s runs in [fromMs, horizon) through `tasks` and `timers` (a
   * transaction's, usually) and records how far they now reach.
   */
  async plan(timer: Timer, fromMs: number, tasks: TaskRepository, timers: TimerRepository): Promise<number> {
    const until = this.horizon(fromMs);
    const runAts = expandRuns(parseCron(timer.cron, { allowYear: true }), timer.timezone, fromMs, until);
    const runs = runAts.map((runAt) => ({ timerId: timer.id, app: timer.app, runAt }));
    await tasks.insertRuns(runs);
    await this.slices.addRuns(runs);
    await timers.setPlannedUntil([timer.id], until);
    return runs.length;
  }

  /** Cancels `timerId`'s pending runs due at or after `fromMs`. */
  async cancel(timerId: number, fromMs: number, tasks: TaskRepository): Promise<number> {
    const runAts = await tasks.deletePending(timerId, fromMs);
    await this.slices.removeRuns(runAts.map((runAt) => ({ timerId, runAt })));
    return runAts.length;
  }
}
