import { describe, expect, it } from 'vitest';
import {
  cronPeriodMs,
  defOf,
  durationMs,
  instantsBetween,
  type TimerJson,
} from '../../../../bench/chaos/timer-def.js';

/** The chaos checker works out instants by itself, from the timer the API shows. */

const T = Date.parse('2026-12-01T00:00:00Z');

function timer(overrides: Partial<TimerJson> = {}): TimerJson {
  return {
    app: 'chaos',
    name: 't0',
    status: 'active',
    cron: null,
    every: null,
    offset: null,
    at: null,
    startAt: null,
    endAt: null,
    jitterMs: 0,
    callback: { url: 'http://127.0.0.1:9/hook/t0/r2', timeoutMs: 3000 },
    retry: { maxAttempts: 3 },
    misfirePolicy: 'skip',
    misfireThresholdMs: 5000,
    overlapPolicy: 'allow',
    ...overrides,
  };
}

describe('chaos timer definitions', () => {
  it('reads the seconds crons and intervals the chaos run creates, and refuses others', () => {
    expect(cronPeriodMs('* * * * * *')).toBe(1000);
    expect(cronPeriodMs('*/3 * * * * *')).toBe(3000);
    expect(() => cronPeriodMs('*/7 * * * * *')).toThrow(/unsupported cron/);
    expect(() => cronPeriodMs('0 * * * * *')).toThrow(/unsupported cron/);
    expect(durationMs('2s')).toBe(2000);
    expect(durationMs('1m30s')).toBe(90_000);
    expect(() => durationMs('PT2S')).toThrow(/unsupported duration/);
    expect(() => defOf(timer({ cron: '* * * * * *', jitterMs: 500 }))).toThrow(/jitter/);
  });

  it('lists an interval’s instants at its offset, up to its endAt', () => {
    const def = defOf(timer({ every: '3s', offset: '2s', endAt: new Date(T + 11_000).toISOString() }));
    expect(def.path).toBe('/hook/t0/r2');
    expect(instantsBetween(def, T, T + 20_000).map((t) => t - T)).toEqual([2000, 5000, 8000]);
  });

  it('lists a cron’s every second from its startAt, and a one-shot’s only instant', () => {
    const cron = defOf(timer({ cron: '*/2 * * * * *', startAt: new Date(T + 3000).toISOString() }));
    expect(instantsBetween(cron, T, T + 9000).map((t) => t - T)).toEqual([4000, 6000, 8000]);
    const once = defOf(timer({ at: new Date(T + 1500).toISOString() }));
    expect(instantsBetween(once, T, T + 9000)).toEqual([T + 1500]);
    expect(instantsBetween(once, T + 2000, T + 9000)).toEqual([]);
  });
});
