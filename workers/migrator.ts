import type { Core } from '../src/core.js';
import { planHorizon, stepMs, windowAt, windowKey } from '../src/domain/migration-window.js';
import { MINUTE } from '../src/domain/slice.js';
import { Compensator } from '../src/services/compensator.js';
import { Migration } from '../src/services/migration.js';
import { TaskRepository } from '../src/storage/db/task-repository.js';
import { TimerRepository } from '../src/storage/db/timer-repository.js';
import { RedisLock } from '../src/storage/redis/redis-lock.js';
import { RunClaims } from '../src/storage/redis/run-claims.js';
import type { Role } from './executor.js';

/**
 * Migration lock times (SPEC §4): 20 min while working, 120 min once the window is done,
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
const COMPENSATE_EVERY_MS = 30_000;
const INTACT_CHECK_EVERY_MS = 5_000;

/**
 * The migrator role: materialises runs ahead of time, once per window under the
 * window's lock (at start-up, then at every window boundary); rebuilds the slices when
 * Redis has lost them; and runs the compensator every 30 s.
 */
export async function startMigrator(core: Core): Promise<Role> {
  const { queues } = core;
  const { config, keys, redis } = core;
  const logger = core.logger.child({ component: 'migrator' });
  const timers = new TimerRepository(core.database.db);
  const tasks = new TaskRepository(core.database.db, core.database.pool);
  const migration = new Migration(
    timers,
    tasks,
    core.slices,
    (jobs) => queues.execute.addBulk(jobs),
    config.prereadMs,
    logger,
    // Beside the firing roles, materialise at half speed in smaller bites: the window
    // is needed only a step from now, the runs firing now are due now.
    { restRatio: 1, flushRows: 5000 },
  );
  const compensator = new Compensator({
    timers,
    tasks,
    claims: new RunClaims(redis, keys),
    queues,
    record: (outcomes) => tasks.recordOutcomes(outcomes),
    retentionDays: config.taskRetentionDays,
    logger: logger.child({ component: 'compensator' }),
  });
  const lock = new RedisLock(redis);
  const step = config.migrateStepMinutes;
  const lockTimes = migrationLockTimes(step);

  async function migrate(): Promise<void> {
    const now = Date.now();
    const window = windowAt(now, step);
    const lockKey = keys.migratorLock(windowKey(window.start, step));
    const token = await lock.acquire(lockKey, lockTimes.workingMs);
    if (!token) return;
    const horizon = planHorizon(now, step);
    const log = logger.child({ window: windowKey(window.start, step) });
    log.info({ horizon: new Date(horizon).toISOString() }, 'migration started');
    let lastLog = Date.now();
    try {
      const { metrics } = core;
      const result = await migration.run(horizon, now, (p) => {
        metrics.migrationProgress.set({ phase: p.phase }, p.runs);
        if (Date.now() - lastLog >= 2000) {
          lastLog = Date.now();
          log.info(p, 'migration progress');
          // A long migration keeps its window: the working lock only lapses if we die.
          lock.extend(lockKey, token, lockTimes.workingMs).catch(() => undefined);
        }
      });
      await lock.extend(lockKey, token, lockTimes.doneMs);
      metrics.migrationRuns.inc(result.runs);
      metrics.migrationSeconds.observe(result.ms / 1000);
      metrics.migrationProgress.reset();
      log.info(
        { ...result, runsPerSecond: Math.round((result.runs * 1000) / Math.max(result.ms, 1)) },
        'migration done',
      );
    } catch (err) {
      // Keep the working lock: any migrator retries the window once it lapses.
      log.error({ err: (err as Error).message }, 'migration failed');
    }
  }

  async function checkSlicesIntact(): Promise<void> {
    if ((await redis.exists(keys.slicesIntact())) === 1) return;
    const token = await lock.acquire(keys.migratorLock('rebuild'), 5 * 60_000);
    if (!token) return;
    try {
      const now = Date.now();
      // From the previous minute (still walked by the scheduler) to the planning horizon.
      const placed = await migration.rebuildSlices(now - 2 * MINUTE, planHorizon(now, step));
      await redis.set(keys.slicesIntact(), String(Date.now()));
      if (placed > 0) logger.warn({ placed }, 'slices rebuilt from MySQL (Redis had lost them)');
    } finally {
      await lock.release(keys.migratorLock('rebuild'), token);
    }
  }

  async function compensate(): Promise<void> {
    const token = await lock.acquire(keys.compensatorLock(), COMPENSATE_EVERY_MS - 5000);
    if (!token) return;
    const report = await compensator.run(Date.now());
    for (const [action, n] of Object.entries(report)) if (n > 0) core.metrics.compensated.inc({ action }, n);
    core.metrics.runs.inc({ outcome: 'missed' }, report.missed);
    core.metrics.runs.inc({ outcome: 'skipped' }, report.skipped);
    if (report.purged > 0) logger.info({ purged: report.purged }, 'old runs purged');
  }

  const pending = new Map<string, NodeJS.Timeout>();
  let running = true;
  const inFlight = new Set<Promise<void>>();
  function every(name: string, periodMs: number, fn: () => Promise<void>, alignTo?: number): void {
    const run = () => {
      if (!running) return;
      const p = fn()
        .catch((err) =>
          logger.warn({ task: name, err: (err as Error).message }, `${name} failed; will retry`),
        )
        .finally(() => {
          inFlight.delete(p);
          if (!running) return;
          const delay = alignTo ? alignTo - (Date.now() % alignTo) + 1000 : periodMs;
          pending.set(name, setTimeout(run, Math.min(delay, periodMs)));
        });
      inFlight.add(p);
    };
    run();
  }

  every('slice check', INTACT_CHECK_EVERY_MS, checkSlicesIntact);
  // At start-up, then just after each window boundary (re-checked every minute in case
  // the lock holder died mid-way and the 20-min lock lapsed).
  every('migration', lockTimes.checkEveryMs, migrate, stepMs(step));
  every('compensator', COMPENSATE_EVERY_MS, compensate);
  logger.info({ stepMinutes: step }, 'migrator started');

  return {
    async close() {
      running = false;
      for (const t of pending.values()) clearTimeout(t);
      await Promise.all(inFlight);
    },
  };
}
