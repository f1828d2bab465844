import {
  planHorizon,
  stepMs,
  TOP_UP_LEAD_MS,
  topUpHorizons,
  windowAt,
  windowKey,
} from '../../domain/plan/migration-window.js';
import { MINUTE, minuteKey } from '../../domain/plan/slice.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Keys } from '../../storage/redis/keys.js';
import type { RedisLock } from '../../storage/redis/redis-lock.js';
import type { ScriptedRedis } from '../../storage/redis/scripts.js';
import type { CompensationReport, Compensator } from '../recovery/compensator.js';
import type { LateSweep, LateSweepReport } from '../recovery/late-sweep.js';
import type { HistoryRetention } from './history-retention.js';
import type { WindowPlanner } from './window-planner.js';

/**
 * Window lock times: 20 min while working, 120 min once the window is done,
 * for hour windows. Shorter windows scale them down (a third and twice the window), so a
 * migrator that died mid-way is replaced well before the next window starts.
 */
export function migrationLockTimes(stepMinutes: number): {
  workingMs: number;
  doneMs: number;
  checkEveryMs: number;
} {
  const step = stepMs(stepMinutes);
  return {
    workingMs: Math.min(20 * 60_000, Math.floor(step / 3)),
    doneMs: Math.min(120 * 60_000, 2 * step),
    checkEveryMs: Math.min(MINUTE, Math.floor(step / 4)),
  };
}

/** How often the compensator runs; its lock lapses a little sooner. */
export const COMPENSATE_EVERY_MS = 30_000;
/** How often runs past their misfire threshold are settled in bulk; its lock lapses a little sooner. */
export const SWEEP_LATE_EVERY_MS = 10_000;
/** How often the run history's partitions are checked (a day is added or dropped once a day). */
export const RETAIN_HISTORY_EVERY_MS = 10 * 60_000;
/** How long a rebuild of the slices may take before another migrator may try. */
const REBUILD_LOCK_MS = 5 * 60_000;
const PROGRESS_EVERY_MS = 2000;

export interface MigrationRunnerDeps {
  migration: WindowPlanner;
  compensator: Compensator;
  lateSweep: LateSweep;
  history: HistoryRetention;
  lock: RedisLock;
  redis: ScriptedRedis;
  keys: Keys;
  metrics: Metrics;
  stepMinutes: number;
  logger: Logger;
  now(): number;
}

/**
 * The migrator role's duties, each under its cluster-wide lock so any number of
 * migrators may run them: materialise the next window once, top up the
 * timers planned only for the near term once a minute, rebuild the slices after Redis
 * lost them, run the compensator, and keep the run history's day partitions.
 */
export class MigrationRunner {
  private readonly lockTimes: ReturnType<typeof migrationLockTimes>;
  /** Aborted at shutdown: a migration or rebuild under way stops after the batch it is writing. */
  private readonly stopping = new AbortController();
  /** This process's first passes of a top-up under way, which its further passes follow. */
  private readonly firstPasses = new Set<Promise<void>>();

  constructor(private readonly d: MigrationRunnerDeps) {
    this.lockTimes = migrationLockTimes(d.stepMinutes);
  }

  get checkEveryMs(): number {
    return this.lockTimes.checkEveryMs;
  }

  /**
   * Shutdown: the planning under way stops between batches instead of running to its end
   * (a top-up of every-second timers writes ~100,000 runs); what it did not reach is
   * planned by the next migrator's pass.
   */
  stop(): void {
    this.stopping.abort();
  }

  /** Materialises the window after the current one, unless another migrator has (or is). */
  async migrate(): Promise<void> {
    const { d, lockTimes } = this;
    const now = d.now();
    const window = windowAt(now, d.stepMinutes);
    const lockKey = d.keys.migratorLock(windowKey(window.start, d.stepMinutes));
    const token = await d.lock.acquire(lockKey, lockTimes.workingMs);
    if (!token) return;
    const horizon = planHorizon(now, d.stepMinutes);
    const log = d.logger.child({ window: windowKey(window.start, d.stepMinutes) });
    log.debug({ horizon: new Date(horizon).toISOString() }, 'migration started');
    let lastLog = d.now();
    try {
      const result = await d.migration.run(horizon, now, {
        signal: this.stopping.signal,
        onProgress: (p) => {
          d.metrics.migrationProgress.set({ phase: p.phase }, p.runs);
          if (d.now() - lastLog >= PROGRESS_EVERY_MS) {
            lastLog = d.now();
            log.info(p, 'migration progress');
            // A long migration keeps its window: the working lock only lapses if we die.
            d.lock.extend(lockKey, token, lockTimes.workingMs).catch(() => undefined);
          }
        },
      });
      if (result.stopped) {
        // Not done: the window goes to the next migrator at once, not when the lock lapses.
        d.metrics.migrationProgress.reset();
        await d.lock.release(lockKey, token);
        log.info(result, 'migration stopped part-way for shutdown');
        return;
      }
      await d.lock.extend(lockKey, token, lockTimes.doneMs);
      d.metrics.migrationRuns.inc(result.runs);
      d.metrics.migrationSeconds.observe(result.ms / 1000);
      d.metrics.migrationProgress.reset();
      // Quiet at idle: a window that planned nothing is no news.
      log[result.runs > 0 ? 'info' : 'debug'](
        { ...result, runsPerSecond: Math.round((result.runs * 1000) / Math.max(result.ms, 1)) },
        'migration done',
      );
    } catch (err) {
      // Keep the working lock: any migrator retries the window once it lapses.
      d.metrics.migrationProgress.reset();
      log.error({ err: (err as Error).message }, 'migration failed');
    }
  }

  /**
   * The top-up's first pass, just after each minute starts: every active timer whose runs
   * stop within TOP_UP_LEAD_MS (a create, enable or schedule change planned only its near
   * term) planned a few minutes on (the first of `topUpHorizons`). It never waits for the
   * further passes, which take minutes for a thousand dense timers: a timer created while
   * they ran would otherwise run out of runs before its turn. Once a minute but a window's
   * first, by whichever migrator takes the minute's lock; a failed pass is retried by the
   * next minute's, still ahead of the runs running out.
   */
  async topUp(): Promise<void> {
    const near = this.topUpPasses('top-up', (now, ends) => ({
      ends: ends.slice(0, 1),
      selectBeforeMs: now + TOP_UP_LEAD_MS,
    }));
    const settled = near.catch(() => undefined);
    this.firstPasses.add(settled);
    try {
      await near;
    } finally {
      this.firstPasses.delete(settled);
    }
  }

  /**
   * The top-up's further passes, each to a further end and taking the timers the one before
   * moved on: all of them a few minutes ahead before any of them further, up to the horizon.
   * Once a minute as well, under a lock of its own; a minute whose passes are still under
   * way here is left to another migrator, or to the next minute.
   */
  async topUpFurther(): Promise<void> {
    // The minute's first pass moves timers on to where these passes select them: after it.
    await Promise.all(this.firstPasses);
    // Timers whose runs stop within the lead are the first pass's, this minute's or the
    // next's: taken here too, the first minutes of every new dense timer were written twice.
    await this.topUpPasses('top-up-further', (now, ends) => ({
      ends: ends.slice(1),
      selectBeforeMs: (ends[0] as number) + 1,
      selectFromMs: now + TOP_UP_LEAD_MS,
    }));
  }

  /** Top-up passes under the minute's lock named `name`, to the `ends` chosen from this minute's. */
  private async topUpPasses(
    name: string,
    choose: (
      now: number,
      ends: number[],
    ) => { ends: number[]; selectBeforeMs: number; selectFromMs?: number },
  ): Promise<void> {
    const { d } = this;
    const signal = this.stopping.signal;
    if (signal.aborted) return;
    const now = d.now();
    // A window's first minute is the migration's: it starts at the boundary and plans every
    // timer short of the horizon, these among them. Side by side the two planned every
    // dense timer twice, at the busiest moment. The next minute's top-up is the second chance.
    if (now - windowAt(now, d.stepMinutes).start < MINUTE) return;
    const lockKey = d.keys.migratorLock(`${name}:${minuteKey(now)}`);
    // Kept to the end of the minute, never released: one top-up per minute.
    if (!(await d.lock.acquire(lockKey, Math.max(1000, MINUTE - (now % MINUTE))))) return;
    const chosen = choose(now, topUpHorizons(now, d.stepMinutes));
    // Pass by pass, each to a further end: a pass takes the timers the one before moved
    // on (and any others whose runs stop as soon); each plans from the time it starts.
    const result = { timers: 0, runs: 0, ms: 0, stopped: false };
    let selectBeforeMs = chosen.selectBeforeMs;
    for (const until of chosen.ends) {
      const pass = await d.migration.run(until, d.now(), {
        selectBeforeMs,
        selectFromMs: chosen.selectFromMs,
        signal,
      });
      result.timers = Math.max(result.timers, pass.timers);
      result.runs += pass.runs;
      result.ms += pass.ms;
      result.stopped = pass.stopped;
      if (pass.stopped || pass.timers === 0) break;
      selectBeforeMs = until + 1;
    }
    d.metrics.migrationRuns.inc(result.runs);
    if (result.stopped) d.logger.info(result, `${name} stopped part-way for shutdown`);
    // Quiet at idle: timers looked at without a run to plan (their schedules ended) are no news.
    else d.logger[result.runs > 0 ? 'info' : 'debug'](result, `${name} done`);
  }

  /** Puts MySQL's pending runs back into the slices when Redis has lost them (its marker is gone). */
  async rebuildIfLost(): Promise<void> {
    const { d } = this;
    if ((await d.redis.exists(d.keys.slicesIntact())) === 1) return;
    const lockKey = d.keys.migratorLock('rebuild');
    const token = await d.lock.acquire(lockKey, REBUILD_LOCK_MS);
    if (!token) return;
    try {
      const now = d.now();
      // From the previous minute (still walked by the scheduler) to the planning horizon.
      const placed = await d.migration.rebuildSlices(
        now - 2 * MINUTE,
        planHorizon(now, d.stepMinutes),
        this.stopping.signal,
      );
      // Stopped part-way: the slices are not whole, so the marker stays unset for the next migrator.
      if (this.stopping.signal.aborted) return;
      await d.redis.set(d.keys.slicesIntact(), String(d.now()));
      if (placed > 0) d.logger.warn({ placed }, 'slices rebuilt from MySQL (Redis had lost them)');
    } finally {
      await d.lock.release(lockKey, token);
    }
  }

  /** Adds the coming days' history partitions and drops expired ones, unless another migrator just did. */
  async retainHistory(): Promise<void> {
    const { d } = this;
    const token = await d.lock.acquire(d.keys.migratorLock('history'), RETAIN_HISTORY_EVERY_MS - 5000);
    if (!token) return;
    const report = await d.history.run(d.now());
    d.metrics.historyPartitions.inc({ action: 'added' }, report.added);
    d.metrics.historyPartitions.inc({ action: 'dropped' }, report.dropped);
    if (report.added + report.dropped + report.failuresPurged > 0)
      d.logger.info(report, 'run history retained');
  }

  /** One late sweep, unless another migrator ran one within the period. */
  async sweepLate(): Promise<LateSweepReport | null> {
    const { d } = this;
    const token = await d.lock.acquire(d.keys.lateSweepLock(), SWEEP_LATE_EVERY_MS - 1000);
    if (!token) return null;
    return d.lateSweep.run();
  }

  /** One compensator pass, unless another migrator ran one within the period. */
  async compensate(): Promise<CompensationReport | null> {
    const { d } = this;
    const token = await d.lock.acquire(d.keys.compensatorLock(), COMPENSATE_EVERY_MS - 5000);
    if (!token) return null;
    const report = await d.compensator.run(d.now());
    for (const [action, n] of Object.entries(report)) if (n > 0) d.metrics.compensated.inc({ action }, n);
    d.metrics.runs.inc({ outcome: 'missed' }, report.missed);
    d.metrics.runs.inc({ outcome: 'skipped' }, report.skipped);
    return report;
  }
}
