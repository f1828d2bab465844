import type { Core } from '../src/core.js';
import { copyTtlMs, stepMs } from '../src/domain/plan/migration-window.js';
import { MINUTE } from '../src/domain/plan/slice.js';
import { isLostConnection } from '../src/observability/connection-log.js';
import type { Logger } from '../src/observability/logger.js';
import { HistoryRetention } from '../src/services/planning/history-retention.js';
import { Migration } from '../src/services/planning/migration.js';
import {
  COMPENSATE_EVERY_MS,
  MigrationRunner,
  RETAIN_HISTORY_EVERY_MS,
} from '../src/services/planning/migration-runner.js';
import { Compensator } from '../src/services/recovery/compensator.js';
import { BackfillPacer } from '../src/services/timers/backfill-pacer.js';
import { AppRepository } from '../src/storage/db/app-repository.js';
import { TaskPartitions } from '../src/storage/db/task-partitions.js';
import { TaskRepository } from '../src/storage/db/task-repository.js';
import { TimerRepository } from '../src/storage/db/timer-repository.js';
import { AppCopies } from '../src/storage/redis/app-copies.js';
import { requeueRuns } from '../src/storage/redis/queues.js';
import { RedisLock } from '../src/storage/redis/redis-lock.js';
import { OutcomeStash } from '../src/storage/redis/runs/outcome-stash.js';
import { RunClaims } from '../src/storage/redis/runs/run-claims.js';
import { TimerCopies } from '../src/storage/redis/timer-copies.js';
import type { Role } from './role.js';

const INTACT_CHECK_EVERY_MS = 5_000;
const PLAN_REPAIR_EVERY_MS = 5_000;
const PAUSE_SYNC_EVERY_MS = 5_000;
/** How often disabled timers whose `until` has come are resumed (a range on one index). */
const PAUSE_SWEEP_EVERY_MS = 1000;
/** How often backfills' runs are queued (each at BACKFILL_RATE a second). */
const BACKFILL_TICK_MS = 200;

/** The migrator's duties over the core's stores, with the core's clock (tests drive both). */
export function createMigrationRunner(core: Core, logger: Logger): MigrationRunner {
  const { config, keys, redis, queues } = core;
  const timers = new TimerRepository(core.database.db);
  const tasks = new TaskRepository(core.database.db, core.database.pool);
  const copies = new TimerCopies(redis, keys);
  const appCopies = new AppCopies(redis, keys);
  const apps = new AppRepository(core.database.db);
  return new MigrationRunner({
    migration: new Migration(
      timers,
      tasks,
      core.slices,
      (jobs) => queues.execute.addBulk(jobs),
      config.prereadMs,
      logger,
      // Beside the firing roles, materialise at half speed in smaller bites: the window
      // is needed only a step from now, the runs firing now are due now.
      { restRatio: 1, flushRows: 5000 },
      async (planned) => {
        await copies.put(planned, copyTtlMs(config.migrateStepMinutes));
        await appCopies.ensure(
          planned.map((t) => t.app),
          (names) => apps.findMany(names),
        );
      },
    ),
    compensator: new Compensator({
      timers,
      tasks,
      claims: new RunClaims(redis, keys),
      queues,
      record: (outcomes) => tasks.recordOutcomes(outcomes),
      stash: new OutcomeStash(redis, keys.outcomeStash()),
      notifier: core.notifier,
      completeEnded: (now) => core.timers.completeEnded(now),
      logger: logger.child({ component: 'compensator' }),
    }),
    history: new HistoryRetention(
      new TaskPartitions(core.database.pool),
      {
        retentionDays: config.taskRetentionDays,
        failedRetentionDays: config.taskRetentionFailedDays,
        // Runs are planned up to two windows ahead: their days exist before them.
        aheadDays: 2 + Math.ceil((2 * config.migrateStepMinutes) / (24 * 60)),
      },
      logger,
    ),
    lock: new RedisLock(redis),
    redis,
    keys,
    metrics: core.metrics,
    stepMinutes: config.migrateStepMinutes,
    logger,
    now: core.now,
  });
}

/**
 * The migrator role: a MigrationRunner's duties on their clocks — the next window at
 * start-up and at every window boundary, the top-up just after every minute starts,
 * the slices' intactness every 5 s, the compensator every 30 s, the run history's day
 * partitions every 10 minutes, the pauses that end every second, backfills' runs at their pace.
 */
export async function startMigrator(core: Core): Promise<Role> {
  const logger = core.logger.child({ component: 'migrator' });
  const runner = createMigrationRunner(core, logger);
  const { config } = core;

  const pending = new Map<string, NodeJS.Timeout>();
  let running = true;
  const inFlight = new Set<Promise<void>>();
  function every(name: string, periodMs: number, fn: () => Promise<unknown>, alignTo?: number): void {
    // A failing task fails every pass: said once, then every 30th time, and when it works
    // again. A lost connection is the connection log's to say, once for every task.
    let failures = 0;
    const run = () => {
      if (!running) return;
      const p = fn()
        .then(() => {
          if (failures > 0) logger.info({ task: name, failures }, `${name} works again`);
          failures = 0;
        })
        .catch((err) => {
          if (isLostConnection(err)) {
            logger.debug({ task: name, err: (err as Error).message }, `${name} failed; will retry`);
            return;
          }
          if (failures++ % 30 === 0)
            logger.warn({ task: name, err: (err as Error).message, failures }, `${name} failed; will retry`);
        })
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

  every('slice check', INTACT_CHECK_EVERY_MS, () => runner.rebuildIfLost());
  // The service's pause as MySQL keeps it, in case Redis lost its copy.
  every('pause sync', PAUSE_SYNC_EVERY_MS, () => core.servicePause.sync());
  // Committed timer changes whose publisher died or failed before they reached Redis.
  every('plan repair', PLAN_REPAIR_EVERY_MS, () => core.publisher.repair());
  // At start-up, then just after each window boundary (re-checked every minute in case
  // the lock holder died mid-way and the 20-min lock lapsed).
  every('migration', runner.checkEveryMs, () => runner.migrate(), stepMs(config.migrateStepMinutes));
  // Just after each minute starts: the rest of the window for timers planned near-term.
  every('top-up', MINUTE, () => runner.topUp(), MINUTE);
  every('compensator', COMPENSATE_EVERY_MS, () => runner.compensate());
  every('history retention', RETAIN_HISTORY_EVERY_MS, () => runner.retainHistory());
  // Pauses that end: MySQL-driven on every migrator, each resume a conditional change, so
  // it happens once whichever nodes run, restart, or find Redis empty.
  every('pause sweep', PAUSE_SWEEP_EVERY_MS, () => core.timers.resumeEnded(core.now()));
  // Backfills: every migrator paces those no other holds at the moment (row locks). Their
  // runs are past by design: they go in the catch-up lane, never ahead of runs due now.
  const backfills = new BackfillPacer({
    database: core.database,
    dispatch: (jobs) => core.queues.executeLate.addBulk(jobs),
    requeue: (runs) => requeueRuns(core.queues.executeLate, runs),
    ratePerSecond: config.backfillRate,
    logger: logger.child({ component: 'backfill' }),
  });
  every('backfill', BACKFILL_TICK_MS, () => backfills.tick(core.now()));
  logger.info({ stepMinutes: config.migrateStepMinutes }, 'migrator started');

  return {
    async close() {
      running = false;
      runner.stop();
      for (const t of pending.values()) clearTimeout(t);
      await Promise.all(inFlight);
    },
  };
}
