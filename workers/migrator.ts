import type { Core } from '../src/core.js';
import { stepMs } from '../src/domain/plan/migration-window.js';
import { MINUTE } from '../src/domain/plan/slice.js';
import { buildMigrationRunner } from '../src/services/planning/build-migration-runner.js';
import {
  COMPENSATE_EVERY_MS,
  RETAIN_HISTORY_EVERY_MS,
  SWEEP_LATE_EVERY_MS,
} from '../src/services/planning/migration-runner.js';
import { RecurringDuties } from '../src/services/planning/recurring-duties.js';
import { BackfillPacer } from '../src/services/runs/backfill-pacer.js';
import { requeueRuns } from '../src/storage/redis/queues.js';
import type { RunningRole } from './running-role.js';

const INTACT_CHECK_EVERY_MS = 5_000;
const PLAN_REPAIR_EVERY_MS = 5_000;
const PAUSE_SYNC_EVERY_MS = 5_000;
/** How often disabled timers whose `until` has come are resumed (a range on one index). */
const PAUSE_SWEEP_EVERY_MS = 1000;
/** How often backfills' runs are queued (each at BACKFILL_RATE a second). */
const BACKFILL_TICK_MS = 200;

/**
 * The migrator role: a MigrationRunner's duties on their clocks — the next window at
 * start-up and at every window boundary, the top-up just after every minute starts,
 * the slices' intactness every 5 s, the compensator every 30 s, the run history's day
 * partitions every 10 minutes, the pauses that end every second, backfills' runs at their pace.
 */
export async function startMigrator(core: Core): Promise<RunningRole> {
  const logger = core.logger.child({ component: 'migrator' });
  const runner = buildMigrationRunner(core, logger);
  const { config } = core;
  const duties = new RecurringDuties(logger);

  duties.every('slice check', INTACT_CHECK_EVERY_MS, () => runner.rebuildIfLost());
  // The service's pause as MySQL keeps it, in case Redis lost its copy.
  duties.every('pause sync', PAUSE_SYNC_EVERY_MS, () => core.servicePause.sync());
  // Committed timer changes whose publisher died or failed before they reached Redis.
  duties.every('plan repair', PLAN_REPAIR_EVERY_MS, () => core.publisher.repair());
  // At start-up, then just after each window boundary (re-checked every minute in case
  // the lock holder died mid-way and the 20-min lock lapsed).
  duties.every('migration', runner.checkEveryMs, () => runner.migrate(), stepMs(config.migrateStepMinutes));
  // Just after each minute starts: the rest of the window for timers planned near-term, a
  // few minutes on at once and further on its own clock (minutes, for thousands of them).
  duties.every('top-up', MINUTE, () => runner.topUp(), MINUTE);
  duties.every('top-up-further', MINUTE, () => runner.topUpFurther(), MINUTE);
  duties.every('compensator', COMPENSATE_EVERY_MS, () => runner.compensate());
  // Past capacity: runs their misfire policy will not call any more, settled in bulk.
  duties.every('late sweep', SWEEP_LATE_EVERY_MS, () => runner.sweepLate());
  duties.every('history retention', RETAIN_HISTORY_EVERY_MS, () => runner.retainHistory());
  // Pauses that end: MySQL-driven on every migrator, each resume a conditional change, so
  // it happens once whichever nodes run, restart, or find Redis empty.
  duties.every('pause sweep', PAUSE_SWEEP_EVERY_MS, () => core.timers.lifecycle.resumeEnded(core.now()));
  // Backfills: every migrator paces those no other holds at the moment (row locks). Their
  // runs are past by design: they go in the catch-up lane, never ahead of runs due now.
  const backfills = new BackfillPacer({
    database: core.database,
    dispatch: (jobs) => core.queues.executeLate.addBulk(jobs),
    requeue: (runs) => requeueRuns(core.queues.executeLate, runs),
    ratePerSecond: config.backfillRate,
    logger: logger.child({ component: 'backfill' }),
  });
  duties.every('backfill', BACKFILL_TICK_MS, () => backfills.tick(core.now()));
  logger.info({ stepMinutes: config.migrateStepMinutes }, 'migrator started');

  return {
    async close() {
      // The planning under way stops between batches; then the passes under way end.
      runner.stop();
      await duties.stop();
    },
  };
}
