import { type PlannedWindow, planWindow } from '../../domain/plan/plan-window.js';
import { minuteStart } from '../../domain/plan/slice.js';
import type { Timer } from '../../domain/timer.js';
import { awaitedLater } from '../../lib/awaited-later.js';
import { groupBy } from '../../lib/group-by.js';
import type { Logger } from '../../observability/logger.js';
import type { PlannedRun, TaskRepository } from '../../storage/db/tasks/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import { executeJobs } from '../../storage/redis/queues.js';
import type { SliceStore } from '../../storage/redis/runs/slice-store.js';
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
  /** Stopped part-way by its signal (shutdown): the timers not reached keep their old plan. */
  stopped: boolean;
}

export interface MigrationRunOptions {
  onProgress?: (p: MigrationProgress) => void;
  /** Plan only timers whose runs stop before this (default: the horizon, the whole window). */
  selectBeforeMs?: number;
  /** …and at or after this (default: any, never planned included). */
  selectFromMs?: number | undefined;
  /** Stops between batches: each batch written is whole (MySQL, slices, planned_until). */
  signal?: AbortSignal;
}

export interface WindowPlannerOptions {
  pageSize: number;
  /** Rows per INSERT round (several multi-row statements). */
  flushRows: number;
  /**
   * Timers a batch holds at most, runs or not: in an hour's window most daily timers have
   * none, and a batch of a quarter of a million timers overflowed the stack building one
   * statement with each id as a parameter.
   */
  flushTimers: number;
  /** How far back a timer's missed runs are caught up after an outage. */
  maxCatchUpMs: number;
  /**
   * After a batch none of whose runs is due within a minute, rest this many times as long
   * as the batch took, leaving the CPU to the runs firing meanwhile (0: never rest). A
   * window is planned a whole step ahead, so resting costs nothing but time.
   */
  restRatio: number;
  /** Resolves when a batch taking `needMs` would not share the cores with runs firing (FiringLulls). */
  lull?: (needMs: number) => Promise<void>;
  /** The clock a long run measures its own time by (tests drive it). */
  clock: () => number;
}

const DEFAULTS: WindowPlannerOptions = {
  clock: Date.now,
  pageSize: 1000,
  flushRows: 20_000,
  flushTimers: 5_000,
  maxCatchUpMs: 24 * 3600_000,
  restRatio: 0,
};
/** Timers planned between two yields of the event loop. */
const YIELD_EVERY_TIMERS = 50;
/** Timers whose planned_until one UPDATE moves at most. */
const PLANNED_UNTIL_GROUP = 200;
/** Batches with a run due sooner than this go at full speed. */
const REST_SLACK_MS = 60_000;

interface Planned {
  timer: Timer;
  from: number;
  /** Where its runs reach before this plan (the compare-and-set that keeps a re-run from counting twice). */
  before: number | null;
  /** The plan's outcome apart from its runs (recomputed, with them, when the batch is written). */
  next: Omit<PlannedWindow, 'runAts'>;
}

/** A plan the bulk update of planned_until cannot record: the window or cap of the timer moved more than that. */
function isPlain(p: Planned, horizonMs: number): boolean {
  return (
    p.timer.maxRuns === null && p.next.plannedUntil === horizonMs && p.next.finalRunAt === p.timer.finalRunAt
  );
}

/**
 * Bulk materialisation: every active timer whose runs stop short of the
 * horizon gets them from where they stop (so a window missed while the cluster was down
 * is caught up) to the horizon. A first pass counts each minute's runs (bucket counts
 * need the total); the second writes them in batches, MySQL first (multi-row,
 * idempotent), then the slices, overlapping one batch's Redis with the next one's MySQL.
 */
export class WindowPlanner {
  private readonly options: WindowPlannerOptions;

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
    options: Partial<WindowPlannerOptions> = {},
    /** Keeps the copies executors fire by (TimerCopies) of timers given runs, before the runs are placed. */
    private readonly copy?: (timers: Timer[]) => Promise<void>,
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * Plans every active timer whose runs stop before `selectBeforeMs` (default: the
   * horizon, the whole window) up to `horizonMs`. The top-up passes an earlier bound: the
   * timers whose near-term plan is running out.
   */
  async run(
    horizonMs: number,
    nowMs: number,
    { onProgress, selectBeforeMs = horizonMs, selectFromMs, signal }: MigrationRunOptions = {},
  ): Promise<MigrationResult> {
    const started = Date.now();
    // "Now" moves on from here: listing the timers takes seconds when a million are behind.
    const clockAtStart = this.options.clock();
    const floor = nowMs - this.options.maxCatchUpMs;

    // 1. Which timers, from when, and how many of them each minute will hold runs of (the
    //    minute's bucket count depends on it, and it must be known before the first ZADD).
    const planned: Planned[] = [];
    const minuteTotals = new Map<number, number>();
    for (let afterId = 0; !signal?.aborted; ) {
      const page = await this.timers.pageToPlan(
        selectBeforeMs,
        afterId,
        this.options.pageSize,
        selectFromMs ?? null,
      );
      if (page.length === 0) break;
      afterId = page[page.length - 1]!.timer.id;
      for (const [i, { timer, plannedUntil }] of page.entries()) {
        // A page of dense timers is hundreds of thousands of instants: the process's
        // runs due meanwhile get the event loop between timers, not after the page.
        if (i % YIELD_EVERY_TIMERS === YIELD_EVERY_TIMERS - 1) await new Promise((r) => setImmediate(r));
        const from = Math.max(plannedUntil ?? nowMs, floor);
        let window: PlannedWindow;
        try {
          window = planWindow(timer, from, horizonMs);
        } catch (err) {
          this.logger.error(
            { timerId: timer.id, err: (err as Error).message },
            'timer has an unreadable schedule; skipped',
          );
          continue;
        }
        let last = Number.NaN;
        for (const runAt of window.runAts) {
          const m = minuteStart(runAt);
          // A timer counts once in each minute it has runs in (runAts ascend).
          if (m !== last) minuteTotals.set(m, (minuteTotals.get(m) ?? 0) + 1);
          last = m;
        }
        const { runAts: _, ...next } = window;
        planned.push({ timer, from, before: plannedUntil, next });
      }
    }

    // 2. A batch at a time: MySQL first, then its slices, while the next batch goes
    //    into MySQL. A timer's planned_until moves only once both hold its runs.
    let runs = 0;
    let placed = 0;
    let redisTail: Promise<void> = Promise.resolve();
    let batch: Planned[] = [];
    let rows: PlannedRun[] = [];
    const flush = async () => {
      // A timer disabled or changed since the list was read (a long migration under
      // load takes minutes) gets none of these runs: its own change planned it, and
      // runs of its old plan would only be claimed and recorded skipped, by the million.
      const current = await this.timers.activeVersions(batch.map((p) => p.timer.id));
      const unchanged = (timerId: number, version: number) => current.get(timerId) === version;
      const timers = batch.filter((p) => unchanged(p.timer.id, p.timer.version));
      const batchRows = rows.filter((r) => unchanged(r.timerId, r.version));
      batch = [];
      rows = [];
      await this.tasks.insertRuns(batchRows, 3);
      runs += batchRows.length;
      onProgress?.({ phase: 'mysql', timers: planned.length, runs });
      await redisTail;
      redisTail = awaitedLater(
        (async () => {
          if (this.copy) {
            const withRuns = new Set(batchRows.map((r) => r.timerId));
            await this.copy(timers.filter((p) => withRuns.has(p.timer.id)).map((p) => p.timer));
          }
          await this.slices.addRuns(batchRows, minuteTotals);
          // Only where the timer is still the version planned: a change made meanwhile
          // re-planned it from its own near-term horizon, which must stand (or its new
          // schedule's runs up to this horizon would never be planned).
          for (const [version, plain] of groupBy(
            timers.filter((p) => isPlain(p, horizonMs)),
            (p) => p.timer.version,
          )) {
            // In small groups: one UPDATE locking thousands of timer rows queues every change
            // of any of them (a disable during an incident) behind its slowest lock.
            for (let i = 0; i < plain.length; i += PLANNED_UNTIL_GROUP) {
              await this.timers.setPlannedUntil(
                plain.slice(i, i + PLANNED_UNTIL_GROUP).map((p) => p.timer.id),
                horizonMs,
                version,
              );
            }
          }
          for (const p of timers.filter((p) => !isPlain(p, horizonMs))) {
            await this.timers.recordPlan(p.timer.id, p.timer.version, p.before, p.next);
          }
          // Runs due by now, or whose slice window the trigger has read already, are queued
          // as well: their slices will not be walked again. "Now" moves on while a big
          // window is planned (minutes), so it is taken after the runs are in their slices.
          const soon = nowMs + (this.options.clock() - clockAtStart) + this.prereadMs + 1000;
          const due = batchRows.filter((r) => r.runAt < soon);
          if (due.length > 0) await this.dispatch(executeJobs(due, 'migrator'));
          placed += batchRows.length;
          onProgress?.({ phase: 'redis', timers: planned.length, runs: placed });
        })(),
      );
    };
    try {
      for (const p of planned) {
        if (signal?.aborted) break;
        for (const runAt of planWindow(p.timer, p.from, horizonMs).runAts) {
          rows.push({ timerId: p.timer.id, app: p.timer.app, runAt, version: p.timer.version });
        }
        batch.push(p);
        if (rows.length >= this.options.flushRows || batch.length >= this.options.flushTimers) {
          const earliest = rows.reduce((min, r) => Math.min(min, r.runAt), Number.POSITIVE_INFINITY);
          const began = Date.now();
          await flush();
          if (this.options.restRatio > 0 && earliest > Date.now() + REST_SLACK_MS && !signal?.aborted) {
            const took = Date.now() - began;
            await new Promise((r) => setTimeout(r, took * this.options.restRatio));
            // A batch's slices are written while the next one goes into MySQL: room for both.
            await this.options.lull?.(2 * took);
          }
        }
      }
      if (batch.length > 0) await flush();
    } catch (err) {
      // A batch's MySQL write failed: its predecessor's Redis step still runs, and the
      // caller may close the stores the moment this returns.
      await redisTail.catch(() => undefined);
      throw err;
    }
    await redisTail;
    return { timers: planned.length, runs, ms: Date.now() - started, stopped: signal?.aborted ?? false };
  }

  /**
   * Puts MySQL's pending runs in [fromMs, toMs) back into their slices: after Redis lost
   * its data, so the trigger reads Redis again instead of MySQL. Idempotent.
   */
  async rebuildSlices(fromMs: number, toMs: number, signal?: AbortSignal): Promise<number> {
    const totals = await this.tasks.pendingTimersPerMinute(fromMs, toMs);
    let after: { runAt: number; id: number } | null = null;
    let placed = 0;
    while (!signal?.aborted) {
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
