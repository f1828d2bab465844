import { describe, expect, it } from 'vitest';
import { NEVER, planWindow } from '../../../../src/domain/plan/plan-window.js';
import { type ScheduleFields, scheduleOf } from '../../../../src/domain/schedule/timer-schedule.js';

/** A timer's schedule and one plan of it: cron or one-shot, inside [startAt, endAt), capped by maxRuns. */

const T0 = Date.UTC(2030, 0, 1, 10, 0, 0);
const MIN = 60_000;

const cron = (fields: Partial<ScheduleFields> = {}): ScheduleFields => ({
  cron: '* * * * *',
  at: null,
  timezone: 'UTC',
  startAt: null,
  endAt: null,
  ...fields,
});
const plan = (fields: Partial<ScheduleFields> & { maxRuns?: number; runsPlanned?: number } = {}) => ({
  ...cron(fields),
  maxRuns: fields.maxRuns ?? null,
  runsPlanned: fields.runsPlanned ?? 0,
  finalRunAt: null,
});

describe('TimerSchedule', () => {
  it('gives a cron’s instants in a half-open range', () => {
    expect(scheduleOf(cron()).runsBetween(T0, T0 + 3 * MIN)).toEqual([T0, T0 + MIN, T0 + 2 * MIN]);
  });

  it('keeps a cron inside [startAt, endAt)', () => {
    const s = scheduleOf(cron({ startAt: T0 + MIN, endAt: T0 + 3 * MIN }));
    expect(s.runsBetween(T0, T0 + 10 * MIN)).toEqual([T0 + MIN, T0 + 2 * MIN]);
    expect(s.next(T0 - MIN, 5)).toEqual([T0 + MIN, T0 + 2 * MIN]);
    expect(s.firesAt(T0)).toBe(false);
    expect(s.firesAt(T0 + MIN)).toBe(true);
    expect(s.firesAt(T0 + 3 * MIN)).toBe(false);
    expect(s.firstPossible).toBe(T0 + MIN);
    expect(s.lastPossible).toBe(T0 + 3 * MIN - 1);
  });

  it('fires a one-shot once, at its instant, and never after', () => {
    const s = scheduleOf(cron({ cron: null, at: T0 + 1234 }));
    expect(s.runsBetween(T0, T0 + MIN)).toEqual([T0 + 1234]);
    expect(s.runsBetween(T0 + 1235, T0 + MIN)).toEqual([]);
    expect(s.next(T0, 3)).toEqual([T0 + 1234]);
    expect(s.next(T0 + 1234, 3)).toEqual([]);
    expect([s.firstPossible, s.lastPossible]).toEqual([T0 + 1234, T0 + 1234]);
  });

  it('a one-shot outside its window never fires', () => {
    expect(scheduleOf(cron({ cron: null, at: T0, endAt: T0 })).runsBetween(0, NEVER)).toEqual([]);
  });
});

describe('planWindow', () => {
  it('plans an open-ended cron up to the horizon, and goes on from there next time', () => {
    expect(planWindow(plan(), T0, T0 + 2 * MIN)).toEqual({
      runAts: [T0, T0 + MIN],
      plannedUntil: T0 + 2 * MIN,
      runsPlanned: 2,
      finalRunAt: null,
    });
  });

  it('caps by maxRuns across plans, names the final run, and never plans again', () => {
    const first = planWindow(plan({ maxRuns: 3 }), T0, T0 + 2 * MIN);
    expect(first).toMatchObject({ runAts: [T0, T0 + MIN], runsPlanned: 2, finalRunAt: null });
    const second = planWindow(plan({ maxRuns: 3, runsPlanned: 2 }), T0 + 2 * MIN, T0 + 10 * MIN);
    expect(second).toEqual({
      runAts: [T0 + 2 * MIN],
      plannedUntil: NEVER,
      runsPlanned: 3,
      finalRunAt: T0 + 2 * MIN,
    });
  });

  it('leaves a window that has not begun for its start, and ends at its end', () => {
    const before = planWindow(plan({ startAt: T0 + 60 * MIN, endAt: T0 + 62 * MIN }), T0, T0 + 5 * MIN);
    expect(before).toMatchObject({ runAts: [], plannedUntil: T0 + 60 * MIN, finalRunAt: null });
    const inside = planWindow(
      plan({ startAt: T0 + 60 * MIN, endAt: T0 + 62 * MIN }),
      T0 + 60 * MIN,
      T0 + 70 * MIN,
    );
    expect(inside).toEqual({
      runAts: [T0 + 60 * MIN, T0 + 61 * MIN],
      plannedUntil: NEVER,
      runsPlanned: 2,
      finalRunAt: T0 + 61 * MIN,
    });
  });

  it('plans a one-shot once: skipped ahead to while far, final when planned', () => {
    const far = planWindow(plan({ cron: null, at: T0 + 600 * MIN }), T0, T0 + 5 * MIN);
    expect(far).toMatchObject({ runAts: [], plannedUntil: T0 + 600 * MIN });
    const due = planWindow(plan({ cron: null, at: T0 + 600 * MIN }), T0 + 600 * MIN, T0 + 605 * MIN);
    expect(due).toEqual({
      runAts: [T0 + 600 * MIN],
      plannedUntil: NEVER,
      runsPlanned: 1,
      finalRunAt: T0 + 600 * MIN,
    });
  });
});
