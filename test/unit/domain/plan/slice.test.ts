import { describe, expect, it } from 'vitest';
import {
  nearTermHorizon,
  planHorizon,
  topUpHorizons,
  windowAt,
  windowKey,
} from '../../../../src/domain/plan/migration-window.js';
import {
  bucketCountFor,
  bucketOf,
  dayKey,
  minuteKey,
  minuteStart,
  minutesToScan,
  parseMinuteKey,
  sliceId,
} from '../../../../src/domain/plan/slice.js';
import { parseSliceEntry, parseTaskKey, sliceEntry, taskKey } from '../../../../src/domain/plan/task-key.js';

const at = (iso: string) => Date.parse(iso);

describe('slice and bucket math', () => {
  it('names a run’s UTC minute and parses it back', () => {
    expect(minuteKey(at('2026-11-22T10:05:59.999Z'))).toBe('2026-11-22T10:05');
    expect(minuteStart(at('2026-11-22T10:05:59.999Z'))).toBe(at('2026-11-22T10:05:00Z'));
    expect(parseMinuteKey('2026-11-22T10:05')).toBe(at('2026-11-22T10:05:00Z'));
    expect(sliceId('2026-11-22T10:05', 3)).toBe('2026-11-22T10:05_3');
    expect(dayKey(at('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
  });

  it('puts a timer in bucket timerId % count', () => {
    expect(bucketOf(42, 10)).toBe(2);
    expect(bucketOf(7, 1)).toBe(0);
  });

  it('grows a minute’s bucket count by one per 16 timers (slices Redis keeps compact), capped', () => {
    expect(bucketCountFor(0, 10, 100)).toBe(10);
    expect(bucketCountFor(15, 10, 100)).toBe(10);
    expect(bucketCountFor(16, 10, 100)).toBe(11);
    expect(bucketCountFor(1_000_000, 10, 100)).toBe(100);
  });

  it('builds and parses task keys', () => {
    expect(taskKey(42, 1795304060000)).toBe('42_1795304060000');
    expect(parseTaskKey('42_1795304060000')).toEqual({ timerId: 42, runAt: 1795304060000 });
    expect(parseTaskKey('42-1795304060000')).toBeNull();
    expect(parseTaskKey('../etc_1')).toBeNull();
  });

  it('writes a run into its slice compactly, and reads both that and the long form', () => {
    const minute = at('2026-11-22T10:05:00Z');
    const run = { timerId: 1_000_000, runAt: minute, version: 1 };
    // A cron's second-0 run: member "lfls.0.1", score 0 (Redis keeps both as small as they come).
    expect(sliceEntry(run, minute)).toEqual({ member: 'lfls.0.1', score: 0 });
    expect(sliceEntry(run, minute, true)).toEqual({ member: `1000000_${minute}_1`, score: minute });
    for (const r of [run, { timerId: 987_654_321_012, runAt: minute + 59_999, version: 4_000_000_000 }]) {
      expect(parseSliceEntry(sliceEntry(r, minute).member, minute)).toEqual(r);
      expect(parseSliceEntry(sliceEntry(r, minute, true).member, minute)).toEqual(r);
    }
    // The long form without a version, as the first releases wrote it.
    expect(parseSliceEntry(`42_${minute}`, minute)).toEqual({ timerId: 42, runAt: minute, version: 0 });
    expect(parseSliceEntry('42-1', minute)).toBeNull();
    expect(parseSliceEntry('LFLS.0.1', minute)).toBeNull();
  });

  it('scans the previous and current minute, and the next one within the prefetch', () => {
    const m = at('2026-11-22T10:05:00Z');
    expect(minutesToScan(m + 30_000, 2000)).toEqual([m - 60_000, m]);
    expect(minutesToScan(m + 58_500, 2000)).toEqual([m - 60_000, m, m + 60_000]);
  });
});

describe('migration windows', () => {
  it('aligns windows to the clock and plans to the end of the next one', () => {
    const t = at('2026-11-22T10:17:00Z');
    expect(windowAt(t, 60)).toEqual({ start: at('2026-11-22T10:00:00Z'), end: at('2026-11-22T11:00:00Z') });
    expect(planHorizon(t, 60)).toBe(at('2026-11-22T12:00:00Z'));
    expect(planHorizon(t, 5)).toBe(at('2026-11-22T10:25:00Z'));
    expect(windowKey(at('2026-11-22T10:00:00Z'), 60)).toBe('2026-11-22T10');
    expect(windowKey(at('2026-11-22T10:15:00Z'), 5)).toBe('2026-11-22T10:15');
  });

  it('plans a create or change only to the end of the minute after next, never past the horizon', () => {
    const t = at('2026-11-22T10:17:30Z');
    expect(nearTermHorizon(t, 60)).toBe(at('2026-11-22T10:20:00Z'));
    expect(nearTermHorizon(at('2026-11-22T10:17:00Z'), 60)).toBe(at('2026-11-22T10:20:00Z'));
    // One-minute windows already plan less than that.
    expect(nearTermHorizon(t, 1)).toBe(planHorizon(t, 1));
    expect(nearTermHorizon(t, 1)).toBe(at('2026-11-22T10:19:00Z'));
  });

  it('tops up in passes that end five minutes ahead, then three times as far each, then at the horizon', () => {
    const t = at('2026-11-22T10:17:30Z');
    expect(topUpHorizons(t, 60)).toEqual(
      ['10:22', '10:32', '11:02', '12:00'].map((hm) => at(`2026-11-22T${hm}:00Z`)),
    );
    // Short windows end before the first pass would: one pass.
    expect(topUpHorizons(t, 2)).toEqual([planHorizon(t, 2)]);
  });
});
