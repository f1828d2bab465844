import { hostname } from 'node:os';
import type { Core } from '../src/core.js';
import { isLostConnection } from '../src/observability/connection-log.js';
import { SliceScheduler, untilNextTick } from '../src/services/slices/slice-scheduler.js';
import { newLockToken } from '../src/storage/redis/redis-lock.js';
import type { RunningRole } from './running-role.js';

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

  let running = true;
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const loop = () => {
    if (!running) return;
    current = scheduler
      .tick(core.now())
      .then(() => {
        if (failures > 0) logger.info('scheduler tick works again');
        failures = 0;
      })
      .catch((err) => {
        // A lost connection is the connection log's to say.
        if (isLostConnection(err)) logger.debug({ err: (err as Error).message }, 'scheduler tick failed');
        else if (failures++ % 30 === 0) logger.warn({ err: (err as Error).message }, 'scheduler tick failed');
      })
      .finally(() => {
        if (running) timer = setTimeout(loop, untilNextTick(core.now(), config.schedulerTickMs));
      });
  };
  loop();
  logger.info({ tickMs: config.schedulerTickMs, prefetchMs: config.prefetchMs }, 'scheduler started');

  return {
    async close() {
      running = false;
      clearTimeout(timer);
      await current;
    },
  };
}
