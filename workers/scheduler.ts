import { hostname } from 'node:os';
import type { Core } from '../src/core.js';
import { PeriodicDuties } from '../src/services/periodic-duties.js';
import { SliceScheduler, untilNextTick } from '../src/services/slice-scheduler.js';
import { newLockToken } from '../src/storage/redis/redis-lock.js';
import type { RunningRole } from './running-role.js';

/** A Redis outage fails every tick: one warning per this many failed ticks. */
const TICK_FAILURES_PER_WARNING = 30;

/** The scheduler role: a SliceScheduler ticking every SCHEDULER_TICK_MS, off the whole second. */
export async function startScheduler(core: Core): Promise<RunningRole> {
  const { config } = core;
  const logger = core.logger.child({ component: 'scheduler' });
  const scheduler = new SliceScheduler({
    redis: core.redis,
    keys: core.keys,
    slices: core.slices,
    queues: core.queues,
    buckets: config.buckets,
    prefetchMs: config.prefetchMs,
    owner: `${hostname()}:${process.pid}`,
    newToken: newLockToken,
    logger,
  });

  const duties = new PeriodicDuties({ logger, now: Date.now });
  duties.every(
    'scheduler tick',
    {
      periodMs: config.schedulerTickMs,
      nextDelayMs: (now) => untilNextTick(now, config.schedulerTickMs),
      warnEveryFailures: TICK_FAILURES_PER_WARNING,
    },
    () => scheduler.tick(Date.now()),
  );
  logger.info({ tickMs: config.schedulerTickMs, prefetchMs: config.prefetchMs }, 'scheduler started');

  return {
    close: () => duties.stop(),
  };
}
