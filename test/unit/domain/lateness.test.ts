import { describe, expect, it } from 'vitest';
import { latenessOf, sinceBackfillStartOf } from '../../../src/domain/timer.js';

describe('a run’s lateness', () => {
  const runAt = Date.parse('2030-01-01T10:00:00Z');

  it('is how late its first call left', () => {
    expect(latenessOf({ runAt, firstFiredAt: runAt + 12, firedAt: runAt + 5000, trigger: 'schedule' })).toBe(
      12,
    );
    expect(latenessOf({ runAt, firstFiredAt: null, firedAt: runAt + 7, trigger: 'manual' })).toBe(7);
  });

  it('is none for a run never called, nor for a backfill’s, whose instant is past by design', () => {
    expect(latenessOf({ runAt, firstFiredAt: null, firedAt: null, trigger: 'schedule' })).toBeNull();
    expect(
      latenessOf({ runAt, firstFiredAt: runAt + 900_000, firedAt: null, trigger: 'backfill' }),
    ).toBeNull();
  });

  it('reads, for a backfill’s run, as how long after the backfill began it was called', () => {
    const began = Date.parse('2030-01-02T08:00:00Z');
    const base = { firedAt: null, queuedAt: began };
    expect(sinceBackfillStartOf({ ...base, firstFiredAt: began + 1500, trigger: 'backfill' })).toBe(1500);
    expect(sinceBackfillStartOf({ ...base, firstFiredAt: null, trigger: 'backfill' })).toBeNull();
    expect(sinceBackfillStartOf({ ...base, firstFiredAt: began + 1500, trigger: 'schedule' })).toBeNull();
  });
});
