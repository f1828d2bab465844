import { ScheduleTooCostlyError } from '../../domain/evaluation-budget.js';
import { type Calendar, skipDatesOf } from '../../domain/schedule/calendar.js';
import { CronSyntaxError } from '../../domain/schedule/cron-schedule.js';
import { scheduleOf } from '../../domain/schedule/timer-schedule.js';
import { changesSchedule, type Timer, type TimerDraft, type TimerPatch } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';

/**
 * The rules a timer definition keeps, shared by the concepts that store one (create,
 * PATCH, upsert, apply, calendars): how a patch merges, whether runs are left, the
 * window's checks, the calendars' dates, a batch item's error. Pure: no store, no clock.
 */

/** `obj` without its undefined properties (a PATCH's absent fields leave values alone). */
export function defined<T extends object>(
  obj: T | undefined,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(obj ?? {}).filter(([, v]) => v !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>;
  }>;
}

export function applyPatch<T extends TimerDraft>(t: T, p: TimerPatch): T {
  const { callback, retry, ...rest } = p;
  const merged = {
    ...t,
    ...defined(rest),
    callback: { ...t.callback, ...defined(callback) },
    retry: { ...t.retry, ...defined(retry) },
  };
  // A timer has a cron, an interval or an `at`: setting one clears the others. A cron set
  // natively replaces the one a Go client wrote; the compatible routes then show the native one.
  const notInterval = { everyMs: null, offsetMs: 0 };
  if (p.at !== undefined)
    return { ...merged, ...notInterval, jitterMs: p.jitterMs ?? 0, cron: null, compatCron: null };
  if (p.cron !== undefined) return { ...merged, ...notInterval, at: null, compatCron: p.compatCron ?? null };
  if (p.everyMs !== undefined) return { ...merged, cron: null, at: null, compatCron: null };
  return merged;
}

/** Does the timer still have a run to make from `now` on (its one-shot time, window and cap)? */
export function hasRunsLeft(timer: Timer, now: number): boolean {
  if (timer.maxRuns !== null && timer.runsPlanned >= timer.maxRuns) return false;
  return scheduleOf(timer).next(now, 1).length > 0;
}

/** TIMER_COMPLETED: an enable of a timer with no run left to make. */
export function noRunsLeft(id: number): XtimerError {
  return new XtimerError(
    ErrorCode.TIMER_COMPLETED,
    `timer ${id} has no run left to make (its one-shot time, endAt or maxRuns is behind it)`,
  );
}

/** TIMER_LIMIT_REACHED if `adding` timers more than the `already` an app has pass `max` (MAX_TIMERS_PER_APP). */
export function checkRoom(app: string, already: number, adding: number, max: number): void {
  if (max <= 0 || already + adding <= max) return;
  throw new XtimerError(
    ErrorCode.TIMER_LIMIT_REACHED,
    already >= max
      ? `app ${app} has ${max} timers, the most it may have (MAX_TIMERS_PER_APP); delete some first`
      : `app ${app} has ${already} timers: ${adding} more would pass MAX_TIMERS_PER_APP (${max})`,
  );
}

/** A one-shot's `at` and the window's end lie ahead, and the window is not empty. */
export function checkWindow(t: TimerDraft, now: number, patch?: TimerPatch): void {
  const problem = (field: string, message: string) =>
    new XtimerError(ErrorCode.VALIDATION_FAILED, `${field}: ${message}`, [{ path: field, message }]);
  if ((!patch || patch.at !== undefined) && t.at !== null && t.at <= now) {
    throw problem('at', 'must be in the future');
  }
  if ((!patch || patch.endAt !== undefined) && t.endAt !== null && t.endAt <= now) {
    throw problem('endAt', 'must be in the future');
  }
  if (t.startAt !== null && t.endAt !== null && t.endAt <= t.startAt) {
    throw problem('endAt', 'must be after startAt');
  }
  if (t.everyMs === null && t.offsetMs !== 0)
    throw problem('offset', 'is only for an interval timer (every)');
  if (t.everyMs !== null && t.offsetMs >= t.everyMs) {
    throw problem('offset', `must be shorter than every (${t.everyMs} ms)`);
  }
  if (t.jitterMs > 0 && (!patch || changesSchedule(patch))) {
    if (t.at !== null) throw problem('jitterMs', 'is for cron and interval timers, not a one-shot (at)');
    // A shift below the shortest gap keeps the runs in order, each with one nominal instant.
    const gap = scheduleOf(t).shortestGap(now);
    if (gap !== null && t.jitterMs > gap) {
      throw problem('jitterMs', `must be at most the schedule's shortest gap between runs (${gap} ms)`);
    }
  }
}

/** The dates the calendars `names` of `app` list, from its calendars by name (CALENDAR_NOT_FOUND for one it lacks). */
export function skipDatesFrom(
  app: string,
  names: readonly string[],
  calendars: ReadonlyMap<string, Calendar>,
) {
  const missing = names.filter((n) => !calendars.has(n));
  if (missing.length > 0) {
    throw new XtimerError(
      ErrorCode.CALENDAR_NOT_FOUND,
      `skipCalendars: app ${app} has no calendar ${missing.join(', ')}`,
      [{ path: 'skipCalendars', message: `no calendar ${missing.join(', ')}` }],
    );
  }
  return skipDatesOf([...calendars.values()].filter((c) => names.includes(c.name)));
}

/** A batch item's error, naming the item: `timers.<index>: …`, and the index in its details. */
export function atIndex(err: unknown, index: number): unknown {
  if (err instanceof CronSyntaxError)
    return atIndex(new XtimerError(ErrorCode.INVALID_CRON, err.message), index);
  if (err instanceof ScheduleTooCostlyError)
    return atIndex(new XtimerError(ErrorCode.CRON_TOO_COSTLY, err.message), index);
  if (!(err instanceof XtimerError)) return err;
  return new XtimerError(err.code, `timers.${index}: ${err.message}`, [
    { path: `timers.${index}`, message: err.message, index },
  ]);
}
