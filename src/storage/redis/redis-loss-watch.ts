import type { Redis } from 'ioredis';
import type { Keys } from './keys.js';

/**
 * Watches the migrator's "slices intact" marker. It vanishes when Redis loses its data
 * (FLUSHDB, a failover to an empty replica) and returns once the slices are rebuilt;
 * while it is gone, and for a while after, claims made before may have been lost too.
 */
export class RedisLossWatch {
  private lastMissingAt = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly everyMs = 100,
    /** How long after the marker is back a loss is still suspected (runs claimed before it). */
    private readonly afterMs = 10_000,
  ) {}

  start(): this {
    const check = () => {
      this.redis
        .exists(this.keys.slicesIntact())
        .then((n) => {
          if (n === 0) this.lastMissingAt = Date.now();
        })
        .catch(() => {
          this.lastMissingAt = Date.now();
        })
        .finally(() => {
          if (this.timer) this.timer = setTimeout(check, this.everyMs).unref();
        });
    };
    this.timer = setTimeout(check, 0).unref();
    return this;
  }

  get suspected(): boolean {
    return Date.now() - this.lastMissingAt < this.afterMs;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
