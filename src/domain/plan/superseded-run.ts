import { scheduleOf } from '../schedule/timer-schedule.js';
import type { Timer } from '../timer.js';

/**
 * Is a run planned for an older version of its timer no longer part of the timer's plan?
 * A PATCH or a disable can race the migrator, which then writes runs of the old plan.
 * Such a run still stands if the plan as it is now would have made it too: due at or
 * after the plan began, at an instant of the current schedule. Otherwise it is
 * superseded: recorded `skipped`, never called.
 */
export function supersededReason(
  timer: Timer,
  runAt: number,
  plannedForVersion: number | undefined,
): string | null {
  if (plannedForVersion === undefined || plannedForVersion === 0 || plannedForVersion >= timer.version)
    return null;
  if (timer.plannedFrom !== null && runAt < timer.plannedFrom) {
    return `superseded: planned for timer version ${plannedForVersion}, before the current plan began`;
  }
  return scheduleOf(timer).firesAt(runAt)
    ? null
    : `superseded: planned for timer version ${plannedForVersion}; version ${timer.version} does not fire at this instant`;
}
