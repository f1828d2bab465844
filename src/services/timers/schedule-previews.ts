import { type ExplainedRun, scheduleOf } from '../../domain/schedule/timer-schedule.js';
import type { Timer } from '../../domain/timer.js';
import type { AccessScope } from './access.js';
import type { TimerStore } from './timer-store.js';

/**
 * A schedule not saved yet, as a preview reads it (app and name seed its `H` values): a
 * cron, an interval or a one-shot `at`, within its window if it has one.
 */
export type SchedulePreviewFields = Pick<Timer, 'cron' | 'timezone'> &
  Partial<Pick<Timer, 'everyMs' | 'offsetMs' | 'at' | 'startAt' | 'endAt' | 'app' | 'name'>>;

/**
 * Previews: the fire times a saved timer or a schedule as typed will have. Each spends
 * a call of the app's rate limit: evaluating a schedule costs what a change does.
 */
export class SchedulePreviews {
  constructor(private readonly store: TimerStore) {}

  /** The timer's next `count` fire times: at or after `fromMs` if given, else after now. */
  async ofTimer(
    scope: AccessScope,
    id: number,
    count: number,
    fromMs?: number,
  ): Promise<{ timer: Timer; runs: number[] }> {
    const timer = await this.store.owned(scope, id);
    await scope.spend();
    // A completed timer fires no more (its window and one-shot time bound the schedule itself).
    if (timer.status === 'completed') return { timer, runs: [] };
    return { timer, runs: scheduleOf(timer).next(this.from(fromMs), count) };
  }

  /** The next `count` nominal instants with the calendars that skip some (preview ?explain=true). */
  async explain(
    scope: AccessScope,
    id: number,
    count: number,
    fromMs?: number,
  ): Promise<{ timer: Timer; runs: ExplainedRun[] }> {
    const timer = await this.store.owned(scope, id);
    await scope.spend();
    if (timer.status === 'completed') return { timer, runs: [] };
    return { timer, runs: scheduleOf(timer).explain(this.from(fromMs), count) };
  }

  /** The next `count` fire times of a schedule not saved yet (a form's schedule as it is typed). */
  async ofSchedule(
    scope: AccessScope,
    fields: SchedulePreviewFields,
    count: number,
    fromMs?: number,
  ): Promise<number[]> {
    await scope.spend();
    const schedule = scheduleOf({
      ...fields,
      at: fields.at ?? null,
      startAt: fields.startAt ?? null,
      endAt: fields.endAt ?? null,
    });
    return schedule.next(this.from(fromMs), count);
  }

  /** The next `count` fire times of an active timer; none for an inactive or completed one (the dashboard's list). */
  nextFires(timer: Timer, count: number): number[] {
    return timer.status === 'active' ? scheduleOf(timer).next(this.store.deps.now(), count) : [];
  }

  /** Where a preview starts: just before `fromMs` (so it is included), else now. */
  private from(fromMs: number | undefined): number {
    return fromMs === undefined ? this.store.deps.now() : fromMs - 1;
  }
}
