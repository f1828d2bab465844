import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };

/**
 * A fixed-window counter in Redis, so a limit holds across every api process: at most
 * `perWindow` hits per key in each window of `windowMs` (aligned to the clock).
 */
export class RateLimiter {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly perWindow: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts `hits` calls at once (a bulk action's): all allowed, or none. */
  async hit(app: string, now: number, hits = 1): Promise<RateDecision> {
    const window = Math.floor(now / this.windowMs);
    const windowEnd = (window + 1) * this.windowMs;
    // A spare second: a key must not vanish before a clock-skewed process is done with it.
    const count = await this.redis.countHit(this.keys.rateLimit(app, window), windowEnd - now + 1000, hits);
    if (count <= this.perWindow) return { allowed: true };
    return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
  }
}
