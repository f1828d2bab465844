import { Job, WaitingError, Worker } from 'bullmq';
import type { Core } from '../src/core.js';
import { MINUTE, parseMinuteKey, sliceId } from '../src/domain/slice.js';
import type { Logger } from '../src/observability/logger.js';
import { SliceReader, type SliceRunRef } from '../src/services/slice-reader.js';
import { TaskRepository } from '../src/storage/db/task-repository.js';
import { createRedis } from '../src/storage/redis/connection.js';
import {
  executeJobs,
  KEEP_COMPLETED,
  KEEP_FAILED,
  type SliceJobData,
  TRIGGER_QUEUE,
} from '../src/storage/redis/queues.js';
import { RedisLock } from '../src/storage/redis/redis-lock.js';
import type { Role } from './executor.js';

/** Lock time of a completed slice (SPEC §4): past the scheduler's previous-minute pass. */
export const SLICE_ACK_TTL_MS = 130_000;
const WINDOW_MS = 1000;
/** Execute jobs per addBulk (each a run or a batch of runs). */
const FAN_OUT_CHUNK = 200;

/**
 * The trigger role: a BullMQ worker on `trigger`. For its slice it walks the minute in
 * wall-clock 1 s windows, reading each window PREREAD_MS ahead of its start and fanning
 * the runs into `execute` (a lone run as its own job, several as one batch job); the
 * executor holds each run until its due ms.
 * Runs already overdue (takeover, late start) go out in the first read, at once. The
 * slice is acked (lock → 130 s) only when the whole minute was walked.
 */
export async function startTrigger(core: Core): Promise<Role> {
  const { queues } = core;
  const { config, keys } = core;
  const logger = core.logger.child({ component: 'trigger' });
  const reader = new SliceReader(
    core.redis,
    keys,
    core.slices,
    new TaskRepository(core.database.db, core.database.pool),
  );
  const lock = new RedisLock(core.redis);
  const stopping = new AbortController();
  const bullConnection = createRedis(config.redisUrl, { connectionName: 'xtimer-trigger-bull' });
  bullConnection.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      stopping.signal.addEventListener('abort', done, { once: true });
    });

  async function fanOut(runs: SliceRunRef[], slice: string): Promise<void> {
    const jobs = executeJobs(runs, slice);
    for (let i = 0; i < jobs.length; i += FAN_OUT_CHUNK) {
      await queues.execute.addBulk(jobs.slice(i, i + FAN_OUT_CHUNK));
    }
  }

  async function readWithRetry(log: Logger, data: SliceJobData, from: number, to: number) {
    for (let tries = 1; ; tries++) {
      try {
        return await reader.read(data.minute, data.bucket, data.bucketCount, from, to);
      } catch (err) {
        if (tries >= 5 || stopping.signal.aborted) throw err;
        log.warn({ err: (err as Error).message, tries }, 'slice window read failed; retrying');
        await sleep(200 * tries);
      }
    }
  }

  async function ack(job: Job<SliceJobData>, log: Logger): Promise<boolean> {
    // The scheduler may have re-claimed the slice meanwhile: ack with the token it holds now.
    const fresh = job.id ? await Job.fromId<SliceJobData>(queues.trigger, job.id) : undefined;
    const token = fresh?.data.token ?? job.data.token;
    const acked = await lock.extend(
      keys.sliceLock(job.data.minute, job.data.bucket),
      token,
      SLICE_ACK_TTL_MS,
    );
    if (!acked) log.warn('slice lock was lost before the ack; the slice may be walked again');
    return acked;
  }

  const worker = new Worker<SliceJobData>(
    TRIGGER_QUEUE,
    async (job, token) => {
      const data = job.data;
      const slice = sliceId(data.minute, data.bucket);
      const log = logger.child({ slice });
      const start = parseMinuteKey(data.minute);
      const end = start + MINUTE;
      let cursor = start;
      let fanned = 0;
      core.metrics.sliceLag.observe(Math.max(0, Date.now() - (start - config.prereadMs)) / 1000);
      let source: 'redis' | 'mysql' = 'redis';
      while (cursor < end) {
        if (stopping.signal.aborted) {
          // Not done: give the slice straight back so another trigger continues it.
          await job.moveToWait(token);
          throw new WaitingError();
        }
        const wait = cursor - config.prereadMs - Date.now();
        if (wait > 0) {
          await sleep(wait);
          continue;
        }
        // Everything due before the next wall-clock second after now + preread: on time
        // that is one window; after a takeover it is all the overdue runs at once.
        const upto = Math.min(
          end,
          Math.max(
            cursor + WINDOW_MS,
            Math.floor((Date.now() + config.prereadMs) / WINDOW_MS) * WINDOW_MS + WINDOW_MS,
          ),
        );
        const read = await readWithRetry(log, data, cursor, upto);
        // Say so when MySQL actually stands in for Redis (not for an empty minute of a fresh start).
        if (read.source !== source && (read.source === 'redis' || read.runs.length > 0)) {
          source = read.source;
          log.warn(
            { source, runs: read.runs.length },
            source === 'mysql' ? 'slice missing in Redis; reading runs from MySQL' : 'slice back in Redis',
          );
        }
        if (read.runs.length > 0) await fanOut(read.runs, slice);
        fanned += read.runs.length;
        cursor = upto;
      }
      const acked = await ack(job, log);
      core.metrics.slices.inc({ acked: String(acked) });
      log.info({ runs: fanned, acked, lateMs: Date.now() - end }, 'slice walked');
      return { runs: fanned, acked, source };
    },
    {
      connection: bullConnection,
      prefix: keys.bullPrefix(),
      concurrency: config.triggerConcurrency,
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 20,
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    },
  );
  worker.on('error', (err) => logger.warn({ err: err.message }, 'trigger worker error'));
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
