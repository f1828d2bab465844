import { minuteKey, minutesToScan, sliceId } from '../../domain/plan/slice.js';
import { forEachConcurrently } from '../../lib/for-each-concurrently.js';
import type { Logger } from '../../observability/logger.js';
import type { Keys } from '../../storage/redis/keys.js';
import { type Queues, type SliceJobData, sliceJobId } from '../../storage/redis/queues.js';
import type { SliceStore } from '../../storage/redis/runs/slice-store.js';
import type { ScriptedRedis } from '../../storage/redis/scripts.js';
import { SlotBatch } from '../../storage/redis/slot-batch.js';

/**
 * How long a claimed slice stays locked: more than its minute, less than two,
 * so a slice whose trigger died is claimed again by the previous-minute pass.
 */
export const SLICE_CLAIM_TTL_MS = 70_000;
/**
 * How long a slice stays locked between its claim and its job's enqueue: a scheduler that
 * dies in between (SIGKILL, or an enqueue that fails) leaves it to the next tick of any
 * scheduler within seconds, not to the previous-minute pass 70 s later, after the misfire
 * threshold (CI's kill-takeover lost 8 s of runs of all timers that way).
 */
export const SLICE_PENDING_MS = 5000;
/**
 * Slice jobs queued at once: a busy minute has up to MAX_BUCKETS slices, each a few round
 * trips to queue. One at a time, 200 of them took 30 s under load, so a minute's last
 * slices were walked late and their pending claims lapsed while they waited.
 */
const ENQUEUE_CONCURRENCY = 32;

/**
 * Ticks fall half a tick after the whole second, never on it: cron runs land on whole
 * seconds, and that is when the executor's burst of callbacks must have the CPU.
 */
export function untilNextTick(now: number, tickMs: number): number {
  const offset = Math.floor(tickMs / 2);
  const wait = tickMs - ((now - offset) % tickMs);
  return wait === 0 ? tickMs : wait;
}

export interface SliceSchedulerDeps {
  redis: ScriptedRedis;
  keys: Keys;
  slices: Pick<SliceStore, 'bucketCounts'>;
  queues: Pick<Queues, 'trigger'>;
  buckets: number;
  prefetchMs: number;
  /** Who claims (host:pid), shown on the board. */
  owner: string;
  newToken(): string;
  logger: Logger;
}

/**
 * One scheduler tick: for each bucket of the previous, current and (within
 * PREFETCH_MS) next minute, try the slice lock (SET NX with a unique token, for
 * SLICE_PENDING_MS) and, on success, enqueue the slice job into `trigger` and only then
 * extend the lock to SLICE_CLAIM_TTL_MS.
 */
export class SliceScheduler {
  constructor(private readonly d: SliceSchedulerDeps) {}

  /** Claims what it can at `now`; returns the slices it claimed. */
  async tick(now: number): Promise<string[]> {
    const d = this.d;
    const minutes = minutesToScan(now, d.prefetchMs);
    const counts = await d.slices.bucketCounts(minutes);
    const candidates: SliceJobData[] = [];
    minutes.forEach((m, i) => {
      const bucketCount = counts[i] ?? d.buckets;
      for (let bucket = 0; bucket < bucketCount; bucket++) {
        candidates.push({
          minute: minuteKey(m),
          bucket,
          bucketCount,
          token: d.newToken(),
          owner: d.owner,
          claimedAt: now,
        });
      }
    });
    const batch = new SlotBatch(d.redis);
    for (const c of candidates) {
      const key = d.keys.sliceLock(c.minute, c.bucket);
      batch.on(key).set(key, c.token, 'PX', SLICE_PENDING_MS, 'NX');
    }
    const results = await batch.exec();
    const won = candidates.filter((_, i) => results[i]?.[1] === 'OK');
    const claimed: string[] = [];
    await forEachConcurrently(won, ENQUEUE_CONCURRENCY, async (data) => {
      const slice = sliceId(data.minute, data.bucket);
      try {
        await this.enqueue(data);
        // Kept even if the pending claim lapsed during a slow enqueue and no one took it:
        // its job is queued, and a slice left unlocked would be walked again in full.
        const key = d.keys.sliceLock(data.minute, data.bucket);
        if ((await d.redis.keepLock(key, data.token, SLICE_CLAIM_TTL_MS)) !== 1) {
          // Claimed again meanwhile: the other claim gave the job its token, and its
          // trigger acks with that.
          d.logger.warn({ slice }, 'slice claimed again while its job was being queued');
          return;
        }
        claimed.push(slice);
        d.logger.debug({ slice, bucketCount: data.bucketCount }, 'slice claimed');
      } catch (err) {
        // The lock lapses within SLICE_PENDING_MS and the slice is claimed again.
        d.logger.error({ slice, err: (err as Error).message }, 'slice claimed but not enqueued');
      }
    });
    return claimed;
  }

  private async enqueue(data: SliceJobData): Promise<void> {
    const { trigger } = this.d.queues;
    const jobId = sliceJobId(data.minute, data.bucket);
    const existing = await trigger.getJob(jobId);
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
    await trigger.add(`${data.minute}_${data.bucket}`, data, { jobId });
  }
}
