import type { Keys } from '../keys.js';
import type { ScriptedRedis } from '../scripts.js';

/**
 * The cluster-wide slots of a timer's `overlapPolicy`: one per timer for the run
 * in flight (retries included) and, for `buffer_one`, one for the run waiting behind it.
 * Each is held by a run's task key with a time to live, so a holder that died frees it.
 */
export class OverlapSlots {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
  ) {}

  /** Takes (or keeps) the timer's in-flight slot for `runKey`; false while another run has it. */
  async holdRunning(timerId: number, runKey: string, ttlMs: number): Promise<boolean> {
    return (
      (await this.redis.holdSlot(this.keys.overlap(timerId, 'running'), runKey, Math.round(ttlMs))) === 1
    );
  }

  /** Takes (or keeps) the timer's one waiting place for `runKey`; false while another run waits there. */
  async holdBuffered(timerId: number, runKey: string, ttlMs: number): Promise<boolean> {
    return (
      (await this.redis.holdSlot(this.keys.overlap(timerId, 'buffered'), runKey, Math.round(ttlMs))) === 1
    );
  }

  async releaseRunning(timerId: number, runKey: string): Promise<void> {
    await this.redis.releaseLock(this.keys.overlap(timerId, 'running'), runKey);
  }

  async releaseBuffered(timerId: number, runKey: string): Promise<void> {
    await this.redis.releaseLock(this.keys.overlap(timerId, 'buffered'), runKey);
  }
}
