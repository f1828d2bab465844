import { setMaxListeners } from 'node:events';
import { Worker } from 'bullmq';
import type { Core } from '../src/core.js';
import { buildSliceWalker } from '../src/services/slices/build-slice-walker.js';
import { SliceJobRunner } from '../src/services/slices/slice-job-runner.js';
import { SliceLockKeeper } from '../src/services/slices/slice-lock-keeper.js';
import type { WalkResult } from '../src/services/slices/slice-walker.js';
import { createRedis } from '../src/storage/redis/connection.js';
import {
  KEEP_COMPLETED,
  KEEP_FAILED,
  type SliceJobData,
  TRIGGER_QUEUE,
} from '../src/storage/redis/queues.js';
import { RedisLock } from '../src/storage/redis/redis-lock.js';
import { COMPACT_READER } from '../src/storage/redis/runs/slice-form.js';
import type { RunningRole } from './running-role.js';

/**
 * The trigger role: a BullMQ worker on `trigger`, wired to a SliceWalker that walks each
 * slice job's minute and fans its runs into `execute`, together with its other walks' (RunFanOut).
 */
export async function startTrigger(core: Core): Promise<RunningRole> {
  const { config, keys, queues } = core;
  const logger = core.logger.child({ component: 'trigger' });
  const locks = new SliceLockKeeper(new RedisLock(core.redis), keys, queues.trigger);
  const stopping = new AbortController();
  // Every slice walked at once waits on this signal between reads: not a listener leak.
  setMaxListeners(0, stopping.signal);
  const bullConnection = createRedis(config.redisUrl, { connectionName: 'xtimer-trigger-bull' });
  core.connectionLogs.redis.watch(bullConnection);

  const walker = buildSliceWalker(core, locks, logger);
  const runner = new SliceJobRunner({ walker, locks, logger });

  const worker = new Worker<SliceJobData, WalkResult>(
    TRIGGER_QUEUE,
    (job, token) => runner.run(job, token, stopping.signal),
    {
      connection: bullConnection,
      prefix: keys.bullPrefix(TRIGGER_QUEUE),
      name: COMPACT_READER, // writers go compact only while every connected trigger reads it
      concurrency: config.triggerConcurrency,
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 20,
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    },
  );
  worker.on('error', (err) => {
    if (!core.connectionLogs.redis.report(err)) logger.warn({ err: err.message }, 'trigger worker error');
  });
  worker.on('failed', (job, err) => runner.failed(job, err));
  logger.info({ concurrency: config.triggerConcurrency }, 'trigger started');
  if (config.triggerConcurrency < 3 * config.maxBuckets) {
    // Each slice job holds its slot for its minute: a busy minute has MAX_BUCKETS slices,
    // and the previous and next minute's overlap it. Fine if other trigger processes share them.
    logger.warn(
      { concurrency: config.triggerConcurrency, maxBuckets: config.maxBuckets },
      'TRIGGER_CONCURRENCY is below 3 × MAX_BUCKETS: unless other trigger processes share the slices, those of a busy minute wait and fire late',
    );
  }
  return {
    async close() {
      const closing = worker.close();
      stopping.abort();
      await closing;
      await bullConnection.quit().catch(() => undefined);
    },
  };
}
