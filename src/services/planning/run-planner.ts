import { changeHorizon, type PlannedWindow, planWindow } from '../../domain/plan/plan-window.js';
import type { Timer, TimerDraft } from '../../domain/timer.js';
import type { PendingRun, PlannedRun, TaskRepository } from '../../storage/db/tasks/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import {
  continuationJob,
  type ExecuteJob,
  executeJobs,
  type QueuedRun,
  runJob,
} from '../../storage/redis/queues.js';
import type { SliceStore } from '../../storage/redis/runs/slice-store.js';

/** Queues execute jobs (the execute queue's addBulk). */
export type Dispatch = (jobs: ExecuteJob[]) => Promise<unknown>;

/** What a change did to a timer's runs: to place in the slices, and to take out of them. */
export interface PlanChange {
  planned: PlannedRun[];
  cancelled: PendingRun[];
}

export const NO_CHANGE: PlanChange = { planned: [], cancelled: [] };

/**
 * Materialises a single timer's runs and cancels them, in two steps: MySQL inside the
 * change's transaction (plan, cancel), then Redis once it has committed (publish), so
 * no executor finds a run in a slice while the timer that made it is not yet visible.
 * The migrator does the same for all timers at once, in bulk.
 */
export class RunPlanner {
  constructor(
    private readonly slices: SliceStore,
    private readonly stepMinutes: number,
    private readonly prereadMs: number,
    private readonly dispatch: Dispatch,
  ) {}

  /**
   * The first plan of a timer created at `fromMs`, made before it is stored (and has an
   * id), so the timer's row carries it from its INSERT on. runsOf() gives its runs.
   */
  firstPlan(draft: TimerDraft, fromMs: number): PlannedWindow {
    return planWindow(
      { ...draft, runsPlanned: 0, finalRunAt: null },
      fromMs,
      changeHorizon(draft, fromMs, this.stepMinutes),
    );
  }

  /** A plan's runs, to write into MySQL and the slices. */
  runsOf(timer: Timer, window: Pick<PlannedWindow, 'runAts'>): PlannedRun[] {
    return window.runAts.map((runAt) => ({
      timerId: timer.id,
      app: timer.app,
      runAt,
      version: timer.version,
    }));
  }

  /**
   * Plans `timer`'s runs in [fromMs, horizon) through `tasks` and `timers` (a
   * transaction's) as a new plan of this timer version, and records where it begins,
   * how far it reaches and how many runs it holds: the near term only for a dense
   * schedule (changeHorizon), whose rest the migrator's top-up plans. `cancelled`
   * scheduled runs of the previous plan (cancel() just removed them) no longer count
   * towards maxRuns. The near term counts from the change's time `nowMs`, which a plan by
   * occurrence (replanFrom) may begin before.
   */
  async plan(
    timer: Timer,
    fromMs: number,
    tasks: TaskRepository,
    timers: TimerRepository,
    cancelled = 0,
    nowMs = fromMs,
  ): Promise<PlannedRun[]> {
    const window = planWindow(
      { ...timer, runsPlanned: Math.max(0, timer.runsPlanned - cancelled), finalRunAt: null },
      fromMs,
      changeHorizon(timer, Math.max(fromMs, nowMs), this.stepMinutes),
    );
    const runs = this.runsOf(timer, window);
    await tasks.insertRuns(runs);
    await timers.startPlan(timer.id, fromMs, window);
    return runs;
  }

  /** Cancels `timerId`'s pending runs due at or after `fromMs` in MySQL; returns them for publish. */
  async cancel(timerId: number, fromMs: number, tasks: TaskRepository): Promise<PendingRun[]> {
    return tasks.deletePending(timerId, fromMs);
  }

  /** Queues a run made on demand straight into `execute`: it goes at once. */
  async queueNow(run: QueuedRun): Promise<void> {
    // A retry's job names its attempt: the run's own job (its id is the task key) may still be kept.
    await this.dispatch([
      run.trigger === 'retry' ? continuationJob(run, 'retry') : runJob(run, run.trigger ?? 'manual'),
    ]);
  }

  /**
   * Queues a user's retry of a run that ended: as a continuation job, whose id names the
   * attempt. Under the task key alone it would be dropped while BullMQ still keeps the
   * run's first job (an hour after it completed).
   */
  async queueRetry(run: QueuedRun): Promise<void> {
    await this.dispatch([continuationJob(run, 'retry')]);
  }

  /**
   * Once the change has committed: the slices lose the cancelled runs and gain the
   * planned ones, and the planned runs so close that the trigger may already have read
   * their slice window (it reads PREREAD_MS ahead) are queued straight into `execute`.
   * The executor's claim keeps the trigger's copy from doubling them. Their job ids name
   * the plan's version: under the task key alone, the job of a run the executor dropped
   * while its timer was disabled, kept by BullMQ, would swallow the run the enable put back.
   */
  async publish(change: PlanChange, nowMs: number): Promise<void> {
    const began = performance.now();
    await this.slices.removeRuns(change.cancelled);
    await this.slices.addRuns(change.planned);
    // "Now" as the runs are in their slices: the trigger read on while they were placed.
    const soon = nowMs + (performance.now() - began) + this.prereadMs + 1000;
    const imminent = change.planned.filter((r) => r.runAt < soon);
    if (imminent.length > 0) await this.dispatch(executeJobs(imminent, 'planner', true));
  }
}
