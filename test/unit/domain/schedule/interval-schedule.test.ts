import { describe, expect, it } from 'vitest';
import { DurationSyntaxError, formatDuration, parseDuration } from '../../../../src/domain/duration.js';
import { misfireDecision } from '../../../../src/domain/plan/misfire.js';
import { NEVER, planWindow } from '../../../../src/domain/plan/plan-window.js';
import { type ScheduleFields, scheduleOf } from '../../../../src/domain/schedule/timer-schedule.js';

/** Interval timers run at epoch + offset + k·every, in real time, whatever the zone. */

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
/** 2030-01-01T10:00:00Z. */
const T0 = Date.UTC(2030, 0, 1, 10, 0, 0);

const every = (everyMs: number, fields: Partial<ScheduleFields> = {}): ScheduleFields => ({
  cron: null,
  at: null,
  timezone: 'UTC',
  startAt: null,
  endAt: null,
  everyMs,
  offsetMs: 0,
  ...fields,
});

describe('durations', () => {
  it.each([
    ['90m', 90 * MIN],
    ['1h30m', 90 * MIN],
    ['45s', 45 * S],
    ['2d', 48 * H],
    ['PT90M', 90 * MIN],
    ['P1DT12H', 36 * H],
    ['PT1.5S', 1500],
    ['P1W', 7 * 24 * H],
    ['pt5m', 5 * MIN],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '90', 'm', '1.5h', 'P', 'PT', '90 m', '-5m', '5ms', 'P1M', 'P1Y'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(DurationSyntaxError);
  });

  it('says years and months vary in length', () => {
    expect(() => parseDuration('P1M')).toThrow(/years and months/);
  });

  it.each([90 * MIN, 2 * H, 86_400_000, 45 * S, 1500, 0])(
    'shows %d ms in a form that reads back the same',
    (ms) => {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    },
  );

  it('shows a duration in its largest whole unit', () => {
    expect([formatDuration(90 * MIN), formatDuration(2 * H), formatDuration(0)]).toEqual(['90m', '2h', '0s']);
  });
});

describe('interval schedules', () => {
  it('runs at epoch + offset + k·every, whatever the window start', () => {
    const s = scheduleOf(every(90 * MIN, { offsetMs: 15 * MIN }));
    const runs = s.runsBetween(T0, T0 + 6 * H);
    expect(runs.length).toBe(4);
    for (const r of runs) expect((r - 15 * MIN) % (90 * MIN)).toBe(0);
    expect(runs[0]).toBeGreaterThanOrEqual(T0);
    expect(runs[0]! - T0).toBeLessThan(90 * MIN);
    for (let i = 1; i < runs.length; i++) expect(runs[i]! - runs[i - 1]!).toBe(90 * MIN);
  });

  it('splits into consecutive windows without losing or doubling a boundary run', () => {
    const s = scheduleOf(every(3 * S, { offsetMs: 1 * S }));
    const whole = s.runsBetween(T0, T0 + MIN);
    const parts = [...s.runsBetween(T0, T0 + 7 * S), ...s.runsBetween(T0 + 7 * S, T0 + MIN)];
    expect(parts).toEqual(whole);
    expect(whole).toContain(T0 + 7 * S);
    expect(new Set(whole).size).toBe(whole.length);
  });

  it('ignores the time zone: no DST for an interval', () => {
    // 2027-03-14 07:00Z: New York springs forward.
    const from = Date.UTC(2027, 2, 14, 5);
    const utc = scheduleOf(every(30 * MIN)).runsBetween(from, from + 6 * H);
    const ny = scheduleOf(every(30 * MIN, { timezone: 'America/New_York' })).runsBetween(from, from + 6 * H);
    expect(ny).toEqual(utc);
    expect(utc.length).toBe(12);
  });

  it('gives the next runs strictly after an instant, inside [startAt, endAt)', () => {
    const s = scheduleOf(every(10 * S, { startAt: T0 + 25 * S, endAt: T0 + 60 * S }));
    expect(s.next(T0, 10)).toEqual([T0 + 30 * S, T0 + 40 * S, T0 + 50 * S]);
    expect(s.next(T0 + 30 * S, 1)).toEqual([T0 + 40 * S]);
    expect(s.firesAt(T0 + 40 * S)).toBe(true);
    expect(s.firesAt(T0 + 45 * S)).toBe(false);
    expect(s.firesAt(T0 + 60 * S)).toBe(false);
    expect(s.shortestGap(T0)).toBe(10 * S);
  });

  it('plans up to the horizon and stops at maxRuns', () => {
    const fields = { ...every(MIN), maxRuns: 3, runsPlanned: 0, finalRunAt: null };
    const first = planWindow(fields, T0, T0 + 2 * MIN);
    expect(first).toMatchObject({ runAts: [T0, T0 + MIN], runsPlanned: 2, finalRunAt: null });
    const second = planWindow({ ...fields, runsPlanned: 2 }, T0 + 2 * MIN, T0 + 10 * MIN);
    expect(second).toEqual({
      runAts: [T0 + 2 * MIN],
      plannedUntil: NEVER,
      runsPlanned: 3,
      finalRunAt: T0 + 2 * MIN,
    });
  });

  it('decides misfires from its own successor', () => {
    const s = scheduleOf(every(MIN));
    const successor = (runAt: number) => s.next(runAt, 1)[0] ?? null;
    // Picked up 5 minutes late with fire_once: only the latest missed run fires.
    const now = T0 + 5 * MIN + 30 * S;
    expect(misfireDecision('fire_once', 60 * S, T0, now, successor)).toBe('missed');
    expect(misfireDecision('fire_once', 10 * S, T0 + 5 * MIN, now, successor)).toBe('fire');
  });
});
