import { type CronSchedule, expandRuns, nextRuns, parseCron } from './cron-schedule.js';
import { type IntervalSpec, intervalNext, intervalRuns } from './interval-schedule.js';
import { shortestGapMs } from './run-interval.js';
import type { Timer } from './timer.js';

/** The fields that decide when a timer fires (an interval's absent: not an interval timer). */
export type ScheduleFields = Pick<Timer, 'cron' | 'at' | 'timezone' | 'startAt' | 'endAt'> &
  Partial<Pick<Timer, 'everyMs' | 'offsetMs'>>;

/**
 * When a timer fires: its cron in its zone, its interval (`every`, `offset`) in real
 * time, or its one `at`, within its validity window [startAt, endAt). The one place
 * planners, preview, misfire and the executor's checks read a timer's instants from.
 * (maxRuns caps a plan by count: the planners apply it.)
 */
export class TimerSchedule {
  private readonly cron: CronSchedule | null;
  private readonly interval: IntervalSpec | null;

  constructor(private readonly t: ScheduleFields) {
    this.interval =
      t.everyMs === undefined || t.everyMs === null ? null : { everyMs: t.everyMs, offsetMs: t.offsetMs ?? 0 };
    this.cron = t.cron === null || this.interval !== null ? null : parseCron(t.cron, { allowYear: true });
  }

  /** Fire instants in [startMs, endMs), ascending. */
  runsBetween(startMs: number, endMs: number): number[] {
    const from = Math.max(startMs, this.t.startAt ?? startMs);
    const to = Math.min(endMs, this.t.endAt ?? endMs);
    if (to <= from) return [];
    if (this.t.at !== null) return this.t.at >= from && this.t.at < to ? [this.t.at] : [];
    if (this.interval !== null) return intervalRuns(this.interval, from, to);
    if (this.cron === null) return [];
    return expandRuns(this.cron, this.t.timezone, from, to);
  }

  /** The next `count` instants strictly after `afterMs`. */
  next(afterMs: number, count: number): number[] {
    if (this.t.at !== null) return this.runsBetween(afterMs + 1, this.t.at + 1).slice(0, count);
    const from = Math.max(afterMs, (this.t.startAt ?? afterMs + 1) - 1);
    if (this.interval !== null) return intervalNext(this.interval, from, count, this.t.endAt ?? Infinity);
    if (this.cron === null) return [];
    const runs = nextRuns(this.cron, this.t.timezone, from, count);
    return this.t.endAt === null ? runs : runs.filter((r) => r < (this.t.endAt as number));
  }

  /** Does the schedule fire at exactly this instant? */
  firesAt(ms: number): boolean {
    return this.runsBetween(ms, ms + 1).length === 1;
  }

  /**
   * The shortest time between two consecutive runs from `fromMs` on (null: fewer than
   * two runs): an interval's `every`, a sample of a cron's next runs.
   */
  shortestGap(fromMs: number): number | null {
    if (this.interval !== null) return this.interval.everyMs;
    if (this.cron === null) return null;
    return shortestGapMs(this.cron, this.t.timezone, fromMs);
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
