import { type CronSchedule, expandRuns, nextRuns, parseCron } from './cron-schedule.js';
import type { Timer } from './timer.js';

/** The fields that decide when a timer fires. */
export type ScheduleFields = Pick<Timer, 'cron' | 'at' | 'timezone' | 'startAt' | 'endAt'>;

/**
 * When a timer fires: its cron in its zone, or its one `at`, within its validity window
 * [startAt, endAt). The one place planners, preview, misfire and the executor's checks
 * read a timer's instants from. (maxRuns caps a plan by count: the planners apply it.)
 */
export class TimerSchedule {
  private readonly cron: CronSchedule | null;

  constructor(private readonly t: ScheduleFields) {
    this.cron = t.cron === null ? null : parseCron(t.cron, { allowYear: true });
  }

  /** Fire instants in [startMs, endMs), ascending. */
  runsBetween(startMs: number, endMs: number): number[] {
    const from = Math.max(startMs, this.t.startAt ?? startMs);
    const to = Math.min(endMs, this.t.endAt ?? endMs);
    if (to <= from) return [];
    if (this.t.at !== null) return this.t.at >= from && this.t.at < to ? [this.t.at] : [];
    if (this.cron === null) return [];
    return expandRuns(this.cron, this.t.timezone, from, to);
  }

  /** The next `count` instants strictly after `afterMs`. */
  next(afterMs: number, count: number): number[] {
    if (this.t.at !== null) return this.runsBetween(afterMs + 1, this.t.at + 1).slice(0, count);
    if (this.cron === null) return [];
    const from = Math.max(afterMs, (this.t.startAt ?? afterMs + 1) - 1);
    const runs = nextRuns(this.cron, this.t.timezone, from, count);
    return this.t.endAt === null ? runs : runs.filter((r) => r < (this.t.endAt as number));
  }

  /** Does the schedule fire at exactly this instant? */
  firesAt(ms: number): boolean {
    return this.runsBetween(ms, ms + 1).length === 1;
  }

  /**
   * Before this nothing can fire (a one-shot's `at`, a window's `startAt`): planning may
   * skip ahead to it. Null when the schedule may fire any time.
   */
  get firstPossible(): number | null {
    return this.t.at ?? this.t.startAt;
  }

  /** After this nothing fires again (a one-shot's instant, a window's end); null: never ends. */
  get lastPossible(): number | null {
    if (this.t.at !== null) return this.t.at;
    return this.t.endAt === null ? null : this.t.endAt - 1;
  }
}

const schedules = new WeakMap<ScheduleFields, TimerSchedule>();

/** The timer's schedule, parsed once per timer object. */
export function scheduleOf(timer: ScheduleFields): TimerSchedule {
  let s = schedules.get(timer);
  if (!s) {
    s = new TimerSchedule(timer);
    schedules.set(timer, s);
  }
  return s;
}
