import { Job } from 'bullmq';
import type { Keys } from '../../storage/redis/keys.js';
import { type Queues, type SliceJobData, sliceJobId } from '../../storage/redis/queues.js';
import type { RedisLock } from '../../storage/redis/redis-lock.js';
import { SLICE_CLAIM_TTL_MS } from './slice-scheduler.js';

/** Lock time of a completed slice: past the scheduler's previous-minute pass. */
export const SLICE_ACK_TTL_MS = 130_000;

/**
 * A trigger's side of a slice lock: renewed while the slice is walked, lengthened at the
 * ack, let go after a failed walk. Each step uses the token the slice's job holds now:
 * the scheduler may have re-claimed the slice meanwhile and given the job its new token.
 */
export class SliceLockKeeper {
  constructor(
    private readonly lock: Pick<RedisLock, 'extend' | 'keep' | 'release'>,
    private readonly keys: Pick<Keys, 'sliceLock'>,
    private readonly trigger: Queues['trigger'],
  ) {}

  /** Renews the lock while the slice is walked (SLICE_CLAIM_TTL_MS from now); false if another claim holds it. */
  hold(data: SliceJobData): Promise<boolean> {
    return this.keep(data, SLICE_CLAIM_TTL_MS);
  }

  /** Acks the walked slice (SLICE_ACK_TTL_MS); false if another claim holds it. */
  ack(data: SliceJobData): Promise<boolean> {
    return this.keep(data, SLICE_ACK_TTL_MS);
  }

  /** After a failed walk: frees the slice for the next tick, unless another claim holds it. */
  async release(data: SliceJobData): Promise<void> {
    const job = await this.currentJob(data);
    await this.lock.release(this.keys.sliceLock(data.minute, data.bucket), job?.data.token ?? data.token);
  }

  /** Renews the slice's lock with the token its job holds now, or takes it back if it lapsed. */
  private async keep(data: SliceJobData, ttlMs: number): Promise<boolean> {
    const key = this.keys.sliceLock(data.minute, data.bucket);
    const job = await this.currentJob(data);
    // No job: Redis lost its data (FLUSHDB), and the slice must be claimed and walked again
    // from MySQL, so a lock that went with it is not taken back.
    if (!job) return this.lock.extend(key, data.token, ttlMs);
    return this.lock.keep(key, job.data.token, ttlMs);
  }

  /** The job as it is now: the scheduler may have re-claimed the slice and given it its token. */
  private currentJob(data: SliceJobData): Promise<Job<SliceJobData> | undefined> {
    return Job.fromId<SliceJobData>(this.trigger, sliceJobId(data.minute, data.bucket));
  }
}
