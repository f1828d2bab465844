import { type CronSchedule, expandRuns, parseCron } from '../domain/cron-schedule.js';
import { minuteStart } from '../domain/slice.js';
import type { Timer } from '../domain/timer.js';
import type { Logger } from '../observability/logger.js';
import type { PlannedRun, TaskRepository } from '../storage/db/task-repository.js';
import type { TimerRepository } from '../storage/db/timer-repository.js';
import { runJob } from '../storage/redis/queues.js';
import type { SliceStore } from '../storage/redis/slice-store.js';
import type { Dispatch } from './run-planner.js';

export interface MigrationProgress {
  phase: 'mysql' | 'redis';
  timers: number;
  runs: number;
}

export interface MigrationResult {
  timers: number;
  runs: number;
  ms: number;
}

export interface MigrationOptions {
  pageSize: number;
  /** Rows per INSERT round (several multi-row statements). */
  flushRows: number;
  /** How far back a timer's missed runs are caught up after an outage. */
  maxCatchUpMs: number;
}

const DEFAULTS: MigrationOptions = { pageSize: 1000, flushRows: 20_000, maxCatchUpMs: 24 * 3600_000 };

interface Planned {
  timer: Timer;
  schedule: CronSchedule;
  from: number;
}

/**
 * Bulk materialisation (SPEC §5.2): every active timer whose runs stop short of the
 * horizon gets them from where they stop (so a window missed while the cluster was down
 * is caught up) to the horizon. MySQL first (batched, idempotent), then Redis, whose
 * bucket counts need each minute's total, so the runs are expanded a second time rather
 * than all held in memory.
 */
export class Migration {
  private readonly options: MigrationOptions;

  /**
   * @param dispatch queues runs straight into `execute`: a catch-up plans runs that are
   * already due (or due before the trigger's next read), whose slices will not be walked.
   * @param prereadMs how far ahead the trigger reads its slice windows.
   */
  constructor(
    private readonly timers: TimerRepository,
    private readonly tasks: TaskRepository,
    private readonly slices: SliceStore,
    private readonly dispatch: Dispatch,
    private readonly prereadMs: number,
    private readonly logger: Logger,
    options: Partial<MigrationOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  async run(
    horizonMs: number,
    nowMs: number,
    onProgress?: (p: MigrationProgress) => void,
  ): Promise<MigrationResult> {
    const started = Date.now();
    const planned: Planned[] = [];
    const minuteTotals = new Map<number, number>();
    const floor = nowMs - this.options.maxCatchUpMs;
    let rows: PlannedRun[] = [];
    let runs = 0;
    let afterId = 0;

    for (;;) {
      const page = await this.timers.pageToPlan(horizonMs, afterId, this.options.pageSize);
      if (page.length === 0) break;
      afterId = page[page.length - 1]!.timer.id;
      for (const { timer, plannedUntil } of page) {
        let schedule: CronSchedule;
        try {
          schedule = parseCron(timer.cron, { allowYear: true });
        } catch (err) {
          this.logger.error(
            { timerId: timer.id, err: (err as Error).message },
            'timer has an unreadable cron; skipped',
          );
          continue;
        }
        const from = Math.max(plannedUntil ?? nowMs, floor);
        for (const runAt of expandRuns(schedule, timer.timezone, from, horizonMs)) {
          rows.push({ timerId: timer.id, app: timer.app, runAt });
          const m = minuteStart(runAt);
          minuteTotals.set(m, (minuteTotals.get(m) ?? 0) + 1);
        }
        planned.push({ timer, schedule, from });
        if (rows.length >= this.options.flushRows) {
          runs += rows.length;
          await this.tasks.insertRuns(rows);
          rows = [];
          onProgress?.({ phase: 'mysql', timers: planned.length, runs });
        }
      }
    }
    runs += rows.length;
    await this.tasks.insertRuns(rows);
    if (planned.length > 0) onProgress?.({ phase: 'mysql', timers: planned.length, runs });

    let placed = 0;
    let batch: Planned[] = [];
    let batchRuns: PlannedRun[] = [];
    const flushRedis = async () => {
      await this.slices.addRuns(batchRuns, minuteTotals);
      await this.timers.setPlannedUntil(
        batch.map((p) => p.timer.id),
        horizonMs,
      );
      placed += batchRuns.length;
      batch = [];
      batchRuns = [];
      onProgress?.({ phase: 'redis', timers: planned.length, runs: placed });
    };
    const soon = nowMs + this.prereadMs + 1000;
    let due: ReturnType<typeof runJob>[] = [];
    for (const p of planned) {
      for (const runAt of expandRuns(p.schedule, p.timer.timezone, p.from, horizonMs)) {
        batchRuns.push({ timerId: p.timer.id, app: p.timer.app, runAt });
        if (runAt < soon) due.push(runJob(p.timer.id, runAt, 'migrator', p.timer.version));
      }
      if (due.length >= 1000) {
        await this.dispatch(due);
        due = [];
      }
      batch.push(p);
      if (batchRuns.length >= this.options.flushRows) await flushRedis();
    }
    if (batch.length > 0) await flushRedis();
    if (due.length > 0) await this.dispatch(due);
    return { timers: planned.length, runs, ms: Date.now() - started };
  }

  /**
   * Puts MySQL's pending runs in [fromMs, toMs) back into their slices: after Redis lost
   * its data, so the trigger reads Redis again instead of MySQL. Idempotent.
   */
  async rebuildSlices(fromMs: number, toMs: number): Promise<number> {
    const totals = await this.tasks.pendingPerMinute(fromMs, toMs);
    let after: { runAt: number; id: number } | null = null;
    let placed = 0;
    for (;;) {
      const page = await this.tasks.pendingPage(fromMs, toMs, after, 20_000);
      if (page.length === 0) break;
      await this.slices.addRuns(page, totals);
      placed += page.length;
      const last = page[page.length - 1]!;
      after = { runAt: last.runAt, id: last.id };
    }
    return placed;
  }
}
