import type { Core } from '../../core.js';
import { copyTtlMs } from '../../domain/plan/migration-window.js';
import type { Logger } from '../../observability/logger.js';
import { AppRepository } from '../../storage/db/app-repository.js';
import { TaskPartitions } from '../../storage/db/tasks/task-partitions.js';
import { TaskRepository } from '../../storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../storage/db/timer-repository.js';
import { AppCopies } from '../../storage/redis/app-copies.js';
import { newLockToken, RedisLock } from '../../storage/redis/redis-lock.js';
import { OutcomeStash } from '../../storage/redis/runs/outcome-stash.js';
import { RunClaims } from '../../storage/redis/runs/run-claims.js';
import { TimerCopies } from '../../storage/redis/timer-copies.js';
import { PauseWatch } from '../apps/service-pause.js';
import { Compensator } from '../recovery/compensator.js';
import { LateSweep } from '../recovery/late-sweep.js';
import { HistoryRetention } from './history-retention.js';
import { MigrationRunner } from './migration-runner.js';
import { WindowPlanner } from './window-planner.js';

/** The migrator's duties over the core's stores, with the core's clock (tests drive both). */
export function buildMigrationRunner(core: Core, logger: Logger): MigrationRunner {
  const { config, keys, redis, queues } = core;
  const timers = new TimerRepository(core.database.db);
  const tasks = new TaskRepository(core.database.db, core.database.pool);
  const copies = new TimerCopies(redis, keys);
  const appCopies = new AppCopies(redis, keys);
  const apps = new AppRepository(core.database.db);
  return new MigrationRunner({
    migration: new WindowPlanner(
      timers,
      tasks,
      core.slices,
      (jobs) => queues.execute.addBulk(jobs),
      config.prereadMs,
      logger,
      // Beside the firing roles, materialise at half speed in smaller bites, between
      // instants: the window is needed only a step from now, the runs firing now are due now.
      { restRatio: 1, flushRows: 5000, lull: (needMs) => core.lulls.wait(needMs) },
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
      completeEnded: (now) => core.timers.lifecycle.completeEnded(now),
      logger: logger.child({ component: 'compensator' }),
    }),
    lateSweep: new LateSweep({
      tasks,
      timers,
      claims: new RunClaims(redis, keys),
      owner: `sweep:${newLockToken()}`,
      pause: new PauseWatch(redis, keys.servicePause()),
      notifier: core.notifier,
      metrics: core.metrics,
      logger: logger.child({ component: 'late-sweep' }),
      now: core.now,
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
