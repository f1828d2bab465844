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
  /**
   * False once Redis failed to answer: listeners run then (a failover's READONLY or LOADING)
   * could not write anything, so Redis answering that the marker is gone runs them again.
   */
  private ranReachable = true;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly everyMs = 100,
    /** How long after the marker is back a loss is still suspected (runs claimed before it). */
    private readonly afterMs = 10_000,
  ) {}

  /**
   * Calls `fn` each time a loss is first suspected (not again until the suspicion has
   * passed), and again when Redis, unreachable then, answers that the marker is gone.
   */
  onLoss(fn: () => void): this {
    this.listeners.push(fn);
    return this;
  }

  start(): this {
    const missing = (answered: boolean) => {
      const fresh = !this.suspected || (answered && !this.ranReachable);
      this.lastMissingAt = Date.now();
      this.ranReachable = answered;
      if (fresh) for (const fn of this.listeners) fn();
    };
    const check = () => {
      this.redis
        .exists(this.keys.slicesIntact())
        .then(
          (n) => {
            if (n === 0) missing(true);
          },
          () => missing(false),
        )
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
