import type { Timer } from './timer.js';
import { scheduleOf } from './timer-schedule.js';

/** planned_until of a timer that will never need planning again (its schedule has ended or its runs are capped). */
export const NEVER = Date.UTC(9999, 0, 1);

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
 * The runs of one plan of `timer` (SPEC §5.2): its schedule's instants in [fromMs,
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
