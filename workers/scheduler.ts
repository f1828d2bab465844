import { hostname } from 'node:os';
import type { Core } from '../src/core.js';
import { minuteKey, minutesToScan, sliceId } from '../src/domain/slice.js';
import { type SliceJobData, sliceJobId } from '../src/storage/redis/queues.js';
import { newLockToken } from '../src/storage/redis/redis-lock.js';
import type { Role } from './executor.js';

/**
 * How long a claimed slice stays locked (SPEC §4): more than its minute, less than two,
 * so a slice whose trigger died is claimed again by the previous-minute pass.
 */
export const SLICE_CLAIM_TTL_MS = 70_000;

/**
 * Ticks fall half a tick after the whole second, never on it: cron runs land on whole
 * seconds, and that is when the executor's burst of callbacks must have the CPU.
 */
export function untilNextTick(now: number, tickMs: number): number {
  const offset = Math.floor(tickMs / 2);
  const wait = tickMs - ((now - offset) % tickMs);
  return wait === 0 ? tickMs : wait;
}

/**
 * The scheduler role: every tick, for each bucket of the previous, current and (within
 * PREFETCH_MS) next minute, try the slice lock (SET NX PX 70 s with a unique token) and,
 * on success, enqueue the slice job into `trigger`.
 */
export async function startScheduler(core: Core): Promise<Role> {
  const { queues } = core;
  const { config, keys, redis } = core;
  const logger = core.logger.child({ component: 'scheduler' });
  const owner = `${hostname()}:${process.pid}`;

  async function enqueue(data: SliceJobData): Promise<void> {
    const jobId = sliceJobId(data.minute, data.bucket);
    const existing = await queues.trigger.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (state !== 'completed' && state !== 'failed') {
        // Still in the works (waiting, or being taken over by stalled-job recovery):
        // let it go on, acking with the token we now hold.
        await existing.updateData({ ...existing.data, token: data.token, claimedAt: data.claimedAt });
        return;
      }
      // It ended without an ack (failed, or lost its lock): walk the slice again.
      await existing.remove();
    }
    await queues.trigger.add(`${data.minute}_${data.bucket}`, data, { jobId });
  }

  async function tick(): Promise<void> {
    const now = Date.now();
    const minutes = minutesToScan(now, config.prefetchMs);
    const counts = await core.slices.bucketCounts(minutes);
    const candidates: SliceJobData[] = [];
    minutes.forEach((m, i) => {
      const bucketCount = counts[i] ?? config.buckets;
      for (let bucket = 0; bucket < bucketCount; bucket++) {
        candidates.push({
          minute: minuteKey(m),
          bucket,
          bucketCount,
          token: newLockToken(),
          owner,
          claimedAt: now,
        });
      }
    });
    const pipeline = redis.pipeline();
    for (const c of candidates)
      pipeline.set(keys.sliceLock(c.minute, c.bucket), c.token, 'PX', SLICE_CLAIM_TTL_MS, 'NX');
    const results = (await pipeline.exec()) ?? [];
    const claimed = candidates.filter((_, i) => results[i]?.[1] === 'OK');
    for (const data of claimed) {
      try {
        await enqueue(data);
        logger.info(
          { slice: sliceId(data.minute, data.bucket), bucketCount: data.bucketCount },
          'slice claimed',
        );
      } catch (err) {
        // The lock lapses in 70 s and the slice is claimed again.
        logger.error(
          { slice: sliceId(data.minute, data.bucket), err: (err as Error).message },
          'slice claimed but not enqueued',
        );
      }
    }
  }

  let running = true;
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const loop = () => {
    if (!running) return;
    current = tick()
      .then(() => {
        if (failures > 0) logger.info('scheduler tick works again');
        failures = 0;
      })
      .catch((err) => {
        if (failures++ % 30 === 0) logger.warn({ err: (err as Error).message }, 'scheduler tick failed');
      })
      .finally(() => {
        if (running) timer = setTimeout(loop, untilNextTick(Date.now(), config.schedulerTickMs));
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
