import { describe, expect, it } from 'vitest';
import { untilTime } from '../../../cli/arguments.js';
import { UsageError } from '../../../cli/errors.js';

/** `--until` of `pause` and `timers disable`: an ISO time as written, or a duration from now. */

const NOW = Date.parse('2030-01-01T08:00:00.000Z');

describe('untilTime', () => {
  it('makes a duration the ISO time it ends at, counted from now', () => {
    expect(untilTime('30m', NOW)).toBe('2030-01-01T08:30:00.000Z');
    expect(untilTime('2h', NOW)).toBe('2030-01-01T10:00:00.000Z');
    expect(untilTime('1h30m', NOW)).toBe('2030-01-01T09:30:00.000Z');
    expect(untilTime('1d', NOW)).toBe('2030-01-02T08:00:00.000Z');
    expect(untilTime('PT90S', NOW)).toBe('2030-01-01T08:01:30.000Z');
  });

  it('passes an ISO time on as written, for the API to judge (its offset, the past)', () => {
    expect(untilTime('2030-01-01T09:00:00Z', NOW)).toBe('2030-01-01T09:00:00Z');
    expect(untilTime('2030-01-01T09:00:00+08:00', NOW)).toBe('2030-01-01T09:00:00+08:00');
    expect(untilTime('2001-01-01T00:00:00', NOW)).toBe('2001-01-01T00:00:00');
  });

  it('refuses as a usage error what is neither, and a duration of nothing', () => {
    for (const value of ['soon', '30', 'tomorrow 9am', '2030-01-01', '0m', '']) {
      expect(() => untilTime(value, NOW), value).toThrow(UsageError);
    }
    expect(() => untilTime('30', NOW)).toThrow(/expected an ISO time \(2030-01-01T09:00:00Z\) or a duration/);
    expect(() => untilTime('0s', NOW)).toThrow(/longer than 0/);
  });
});
