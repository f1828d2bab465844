import { setMaxListeners } from 'node:events';
import { Job, WaitingError, Worker } from 'bullmq';
import type { Core } from '../src/core.js';
import { SliceReader } from '../src/services/slices/slice-reader.js';
import { SLICE_CLAIM_TTL_MS } from '../src/services/slices/slice-scheduler.js';
import { abortableSleep, SliceWalker, type WalkResult } from '../src/services/slices/slice-walker.js';
import { TaskRepository } from '../src/storage/db/task-repository.js';
import { createRedis } from '../src/storage/redis/connection.js';
import {
  executeJobs,
  KEEP_COMPLETED,
  KEEP_FAILED,
  type SliceJobData,
  sliceJobId,
  TRIGGER_QUEUE,
} from '../src/storage/redis/queues.js';
import { RedisLock } from '../src/storage/redis/redis-lock.js';
import type { Role } from './role.js';

/** Lock time of a completed slice: past the scheduler's previous-minute pass. */
export const SLICE_ACK_TTL_MS = 130_000;
/** Execute jobs per addBulk (each a run or a batch of runs). */
const FAN_OUT_CHUNK = 200;

/**
 * The trigger role: a BullMQ worker on `trigger`, wired to a SliceWalker that walks each
 * slice job's minute and fans its runs into `execute` (a lone run as its own job, several
 * as one batch job).
 */
export async function startTrigger(core: Core): Promise<Role> {
  const { config, keys, queues } = core;
  const logger = core.logger.child({ component: 'trigger' });
  const lock = new RedisLock(core.redis);
  const stopping = new AbortController();
  // Every slice walked at once waits on this signal between reads: not a listener leak.
  setMaxListeners(0, stopping.signal);
  const bullConnection = createRedis(config.redisUrl, { connectionName: 'xtimer-trigger-bull' });
  core.connectionLogs.redis.watch(bullConnection);

  /** The job as it is now: the scheduler may have re-claimed the slice and given it its token. */
  const currentJob = (data: SliceJobData) =>
    Job.fromId<SliceJobData>(queues.trigger, sliceJobId(data.minute, data.bucket));
  /** Renews the slice's lock with the token its job holds now, or takes it back if it lapsed. */
  const keepSliceLock = async (data: SliceJobData, ttlMs: number) => {
    const key = keys.sliceLock(data.minute, data.bucket);
    const job = await currentJob(data);
    // No job: Redis lost its data (FLUSHDB), and the slice must be claimed and walked again
    // from MySQL, so a lock that went with it is not taken back.
    if (!job) return lock.extend(key, data.token, ttlMs);
    return lock.keep(key, job.data.token, ttlMs);
  };
  /** After a failed walk: frees the slice for the next tick, unless another claim holds it. */
  const releaseSliceLock = async (data: SliceJobData) => {
    const job = await currentJob(data);
    await lock.release(keys.sliceLock(data.minute, data.bucket), job?.data.token ?? data.token);
  };
  const walker = new SliceWalker({
    reader: new SliceReader(
      core.redis,
      keys,
      core.slices,
      new TaskRepository(core.database.db, core.database.pool),
    ),
    async fanOut(runs, slice) {
      const jobs = executeJobs(runs, slice);
      for (let i = 0; i < jobs.length; i += FAN_OUT_CHUNK) {
        await queues.execute.addBulk(jobs.slice(i, i + FAN_OUT_CHUNK));
      }
    },
    hold: (data) => keepSliceLock(data, SLICE_CLAIM_TTL_MS),
    ack: (data) => keepSliceLock(data, SLICE_ACK_TTL_MS),
    metrics: core.metrics,
    prereadMs: config.prereadMs,
    logger,
    now: core.now,
    sleep: abortableSleep,
  });

  const worker = new Worker<SliceJobData, WalkResult>(
    TRIGGER_QUEUE,
    async (job, token) => {
      let result: WalkResult;
      try {
        result = await walker.walkOnce(job.data, job.timestamp, stopping.signal);
      } catch (err) {
        // Its renewals may hold the lock past the scheduler's look at the minute: let go.
        await releaseSliceLock(job.data).catch(() => undefined);
        throw err;
      }
      if (result.kind === 'walked') return result;
      // Not done: give the slice straight back so another trigger continues it.
      await job.moveToWait(token);
      throw new WaitingError();
    },
    {
      connection: bullConnection,
      prefix: keys.bullPrefix(TRIGGER_QUEUE),
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
  worker.on('failed', (job, err) => {
    if (job && !(err instanceof WaitingError))
      logger.error({ slice: job.name, err: err.message }, 'slice job failed; it will be taken over');
  });
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
