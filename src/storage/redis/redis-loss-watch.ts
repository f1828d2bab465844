import type { RedisClient } from './connection.js';
import type { Keys } from './keys.js';

/**
 * Watches the migrator's "slices intact" marker. It vanishes when Redis loses its data
 * (FLUSHDB, a failover to an empty replica) and returns once the slices are rebuilt;
 * while it is gone, and for a while after, claims made before may have been lost too.
 */
export class RedisLossWatch {
  /** Suspected from the start: runs claimed before this process came up may have been lost. */
  private lastMissingAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly everyMs = 100,
    /** How long after the marker is back a loss is still suspected (runs claimed before it). */
    private readonly afterMs = 10_000,
  ) {}

  /** Calls `fn` each time a loss is first suspected (not again until the suspicion has passed). */
  onLoss(fn: () => void): this {
    this.listeners.push(fn);
    return this;
  }

  start(): this {
    const missing = () => {
      const fresh = !this.suspected;
      this.lastMissingAt = Date.now();
      if (fresh) for (const fn of this.listeners) fn();
    };
    const check = () => {
      this.redis
        .exists(this.keys.slicesIntact())
        .then((n) => {
          if (n === 0) missing();
        })
        .catch(missing)
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
