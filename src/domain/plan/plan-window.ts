import { type ScheduleFields, scheduleOf } from '../schedule/timer-schedule.js';
import type { Timer } from '../timer.js';
import { nearTermHorizon, planHorizon } from './migration-window.js';

/** planned_until of a timer that will never need planning again (its schedule has ended or its runs are capped). */
export const NEVER = Date.UTC(9999, 0, 1);

/**
 * A schedule with at most this many runs before the full horizon is sparse: a create
 * plans its whole window at once (as cheap as a dense timer's near term), and the
 * migrator's top-up never needs to see it. Every 30 minutes or sparser, with hour windows.
 */
export const SPARSE_RUNS = 4;

/**
 * Where a create, enable or schedule change at `nowMs` plans `timer` to: the full
 * horizon (the end of the next migration window) for a sparse schedule, the near term
 * for a dense one, whose rest the migrator's top-up plans within the minute.
 */
export function changeHorizon(timer: ScheduleFields, nowMs: number, stepMinutes: number): number {
  const full = planHorizon(nowMs, stepMinutes);
  const first = scheduleOf(timer).next(nowMs - 1, SPARSE_RUNS + 1);
  const dense = first.length > SPARSE_RUNS && (first[SPARSE_RUNS] as number) < full;
  return dense ? nearTermHorizon(nowMs, stepMinutes) : full;
}

/** What planning a timer over [fromMs, horizonMs) yields, its window and cap applied. */
export interface PlannedWindow {
  runAts: number[];
  /** Where its planned runs now reach: the next plan starts here (NEVER once its schedule is done). */
  plannedUntil: number;
  /** Scheduled runs planned in all, this plan's included. */
  runsPlanned: number;
  /** The last run the timer will ever make, if this plan reached it. */
  finalRunAt: number | null;
}

/**
 * The runs of one plan of `timer`: its schedule's instants in [fromMs,
 * horizonMs), at most as many as `maxRuns` leaves. A schedule that cannot fire before a
 * later instant (a one-shot's `at`, a window's `startAt`) records that instant as where
 * its runs reach, so the migrator leaves it alone until then; one that has ended (a
 * one-shot planned, `endAt` passed, `maxRuns` reached) is never planned again.
 */
export function planWindow(
  timer: Pick<
    Timer,
    'cron' | 'at' | 'timezone' | 'startAt' | 'endAt' | 'maxRuns' | 'runsPlanned' | 'finalRunAt'
  >,
  fromMs: number,
  horizonMs: number,
): PlannedWindow {
  const schedule = scheduleOf(timer);
  let runAts = schedule.runsBetween(fromMs, horizonMs);
  let finalRunAt = timer.finalRunAt;
  let ended = false;
  if (timer.maxRuns !== null) {
    const remaining = Math.max(0, timer.maxRuns - timer.runsPlanned);
    if (runAts.length >= remaining) {
      runAts = runAts.slice(0, remaining);
      ended = true;
    }
  }
  const last = schedule.lastPossible;
  if (last !== null && horizonMs > last) ended = true;
  if (ended && runAts.length > 0) finalRunAt = runAts[runAts.length - 1] as number;
  const notBefore = schedule.firstPossible;
  return {
    runAts,
    plannedUntil: ended ? NEVER : Math.max(horizonMs, notBefore ?? horizonMs),
    runsPlanned: timer.runsPlanned + runAts.length,
    finalRunAt,
  };
}
