import { describe, expect, it } from 'vitest';
import { RedisClock } from '../../../../src/storage/redis/redis-clock.js';

/**
 * The offset to Redis TIME from round trips whose reply is read late (a saturated event
 * loop): driven by real time, a Redis on it, and a local clock `offset` behind it.
 */
function measuredClock(offset: number) {
  let real = 1_000_000;
  /** The local clock's distance from real time. */
  let skew = -offset;
  /** How long the next round trip takes: until the request reaches Redis, and until its reply is read. */
  let trip = { out: 0, back: 1 };
  const redis = {
    async time(): Promise<number[]> {
      real += trip.out;
      const redisMs = real;
      real += trip.back;
      return [Math.floor(redisMs / 1000), (redisMs % 1000) * 1000];
    },
  };
  const clock = new RedisClock(redis, () => real + skew);
  return {
    clock,
    /** Measures once, `trip` as given, `afterMs` after the last measurement. */
    async measure(afterMs: number, out: number, back: number) {
      real += afterMs;
      trip = { out, back };
      await clock.measure();
    },
    stepLocal(ms: number) {
      skew += ms;
    },
  };
}

describe('RedisClock', () => {
  it('takes the offset from the round trip', async () => {
    const m = measuredClock(2000);
    await m.measure(0, 0, 1);
    expect(Math.abs(m.clock.offsetMs - 2000)).toBeLessThanOrEqual(1);
  });

  it('keeps the offset of a quick round trip while every later reply is read hundreds of ms late', async () => {
    const m = measuredClock(0);
    await m.measure(0, 0, 1);
    // Ten minutes of a saturated loop: each reply read 250 ms after Redis sent it.
    for (let i = 0; i < 60; i++) await m.measure(10_000, 1, 250);
    // By those samples alone the clock would run ~125 ms behind.
    expect(Math.abs(m.clock.offsetMs)).toBeLessThanOrEqual(1);
  });

  it('takes a slower sample once the quick one has aged past it', async () => {
    const m = measuredClock(0);
    await m.measure(0, 0, 1);
    // Two hours later a 20 ms round trip is the better bound (100 ppm: 720 ms of possible drift).
    await m.measure(7_200_000, 0, 20);
    expect(m.clock.offsetMs).toBe(-10);
  });

  it('follows a step of the local clock at once, whatever the round trip', async () => {
    const m = measuredClock(0);
    await m.measure(0, 0, 1);
    m.stepLocal(-5000);
    await m.measure(10_000, 1, 250);
    expect(Math.abs(m.clock.offsetMs - 5000)).toBeLessThanOrEqual(126);
    expect(m.clock.now()).toBeGreaterThan(0);
  });
});
