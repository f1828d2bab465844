import { type ScheduleFields, scheduleOf } from '../schedule/timer-schedule.js';
import type { Timer } from '../timer.js';

type Replanned = ScheduleFields & Pick<Timer, 'jitterMs' | 'skipDates'>;

/**
 * Where the re-plan of a timer changed from `before` to `after` at `nowMs` begins. A
 * change of jitter alone keeps every occurrence and only moves it, so it re-plans by
 * occurrence, not by the clock: one whose old run has come is not planned again, even
 * where its new shift is still ahead, and one whose old run is still ahead is planned at
 * its new shift, at once if that has passed. Any other change plans from now.
 */
export function replanFrom(before: Replanned, after: Replanned, nowMs: number): number {
  if (before.jitterMs === after.jitterMs || !sameInstants(before, after)) return nowMs;
  const old = scheduleOf(before);
  const [next] = old.next(nowMs - 1, 1);
  // A jitter never exceeds the gap between runs, so occurrences keep their order
  // under any jitter: the new plan from this nominal instant holds exactly the rest.
  return next === undefined ? nowMs : old.nominalOf(next);
}

/** Do both make the same nominal instants (before their jitter), in the same window, on the same dates? */
function sameInstants(a: Replanned, b: Replanned): boolean {
  return (
    a.at === b.at &&
    a.startAt === b.startAt &&
    a.endAt === b.endAt &&
    JSON.stringify(a.skipDates ?? {}) === JSON.stringify(b.skipDates ?? {}) &&
    a.timezone === b.timezone &&
    (a.everyMs ?? null) === (b.everyMs ?? null) &&
    (a.offsetMs ?? 0) === (b.offsetMs ?? 0) &&
    scheduleOf(a).resolvedCron === scheduleOf(b).resolvedCron
  );
}
