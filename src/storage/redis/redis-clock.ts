import type { RedisClient } from './connection.js';

/** How often the offset to Redis TIME is measured again. */
const MEASURE_EVERY_MS = 10_000;
/**
 * How fast two clocks may drift apart, as ms per ms (100 ppm, ten times what an
 * undisciplined quartz clock does): a sample's error bound grows by this with its age.
 */
const MAX_DRIFT = 100e-6;

interface Sample {
  offsetMs: number;
  /** Half the round trip: the true offset lies within this of `offsetMs`. */
  errorMs: number;
  /** When it was taken, by the local clock. */
  atMs: number;
}

/**
 * This process's clock corrected to Redis TIME, the one clock every process shares
 * (leases and claims are judged by it in Lua). A node whose clock runs ahead would
 * otherwise release runs early: each is due by Redis's clock, not the node's. The
 * offset is measured NTP-style (Redis's time minus the midpoint of the round trip).
 *
 * A sample is only as good as its round trip, and a saturated event loop reads each
 * reply late: the offset comes out low by half the delay, for as long as the overload
 * lasts. So the offset kept is the sample whose error bound, grown by the drift since it
 * was taken, is smallest; a sample that contradicts it (their bounds do not overlap: a
 * clock was stepped) replaces it at once.
 */
export class RedisClock {
  private timer: NodeJS.Timeout | null = null;
  private best: Sample | null = null;

  constructor(
    private readonly redis: Pick<RedisClient, 'time'>,
    private readonly local: () => number = Date.now,
  ) {}

  /** Redis's time, as well as this process knows it (ms). */
  readonly now = (): number => this.local() + this.offsetMs;

  /** How far Redis's clock is ahead of this process's (ms; negative: behind). */
  get offsetMs(): number {
    return this.best?.offsetMs ?? 0;
  }

  async measure(): Promise<void> {
    const before = this.local();
    const [seconds, micros] = await this.redis.time();
    const after = this.local();
    const redisMs = Number(seconds) * 1000 + Number(micros) / 1000;
    this.take({
      offsetMs: Math.round(redisMs - (before + after) / 2),
      errorMs: (after - before) / 2,
      atMs: after,
    });
  }

  /** Measures now (a failure leaves the offset at 0) and every 10 s after. */
  async start(): Promise<this> {
    for (let i = 0; i < 3; i++) await this.measure().catch(() => undefined);
    this.timer = setInterval(() => void this.measure().catch(() => undefined), MEASURE_EVERY_MS);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private take(sample: Sample): void {
    const best = this.best;
    if (best === null) {
      this.best = sample;
      return;
    }
    const bestError = best.errorMs + Math.abs(sample.atMs - best.atMs) * MAX_DRIFT;
    // + 1: the local clock and the offsets count whole ms.
    const stepped = Math.abs(sample.offsetMs - best.offsetMs) > sample.errorMs + bestError + 1;
    if (stepped || sample.errorMs <= bestError) this.best = sample;
  }
}
