import { describe, expect, it } from 'vitest';
import { utcDateTime, utcDay } from '../../../src/lib/utc-text.js';

describe('utcDay and utcDateTime', () => {
  it('write what toISOString writes, across days, before 1970 and for fractional ms', () => {
    const instants = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      -1,
      -86_400_001,
      1.7,
      -1.5,
      Date.UTC(2026, 10, 28, 23, 59, 59, 999),
    ];
    for (let i = 0; i < 2000; i++) instants.push(Math.floor((Math.random() - 0.2) * 4e12));
    for (const ms of instants) {
      const iso = new Date(ms).toISOString();
      expect(utcDay(ms)).toBe(iso.slice(0, 10));
      expect(utcDateTime(ms)).toBe(iso.slice(0, 23).replace('T', ' '));
    }
  });
});
