import type { RedisClient } from './connection.js';

/** How often the offset to Redis TIME is measured again. */
const MEASURE_EVERY_MS = 10_000;
/** Samples kept: the one with the shortest round trip says the most. */
const SAMPLES = 6;

interface Sample {
  offsetMs: number;
  roundTripMs: number;
}

/**
 * This process's clock corrected to Redis TIME, the one clock every process shares
 * (leases and claims are judged by it in Lua). A node whose clock runs ahead would
 * otherwise release runs early: each is due by Redis's clock, not the node's. The
 * offset is measured NTP-style (Redis's time minus the midpoint of the round trip),
 * keeping the sample with the shortest round trip of the last few.
 */
export class RedisClock {
  private samples: Sample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private best: Sample = { offsetMs: 0, roundTripMs: Number.POSITIVE_INFINITY };

  constructor(
    private readonly redis: RedisClient,
    private readonly local: () => number = Date.now,
  ) {}

  /** Redis's time, as well as this process knows it (ms). */
  readonly now = (): number => this.local() + this.best.offsetMs;

  /** How far Redis's clock is ahead of this process's (ms; negative: behind). */
  get offsetMs(): number {
    return this.best.offsetMs;
  }

  async measure(): Promise<void> {
    const before = this.local();
    const [seconds, micros] = await this.redis.time();
    const after = this.local();
    const redisMs = Number(seconds) * 1000 + Number(micros) / 1000;
    this.samples = [
      ...this.samples.slice(-(SAMPLES - 1)),
      { offsetMs: Math.round(redisMs - (before + after) / 2), roundTripMs: after - before },
    ];
    this.best = this.samples.reduce((a, b) => (b.roundTripMs < a.roundTripMs ? b : a));
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
}
