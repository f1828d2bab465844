import { EvaluationBudget } from '../evaluation-budget.js';
import type { Timer } from '../timer.js';
import { localDate, type SkipDates } from './calendar.js';
import { type CronSchedule, expandRuns, nextRuns, parseCron } from './cron-schedule.js';
import { hashSeed, resolveHashedCron } from './hashed-cron.js';
import { type IntervalSpec, intervalNext, intervalRuns } from './interval-schedule.js';
import { jitterOffset } from './jitter.js';
import { shortestGapMs } from './run-interval.js';

/**
 * The fields that decide when a timer fires. The optional ones: an interval (absent: not
 * an interval timer), the app and name that seed `H` in a cron, the id and jitter that
 * shift each run (absent: no shift).
 */
export type ScheduleFields = Pick<Timer, 'cron' | 'at' | 'timezone' | 'startAt' | 'endAt'> &
  Partial<Pick<Timer, 'everyMs' | 'offsetMs' | 'jitterMs' | 'id' | 'app' | 'name' | 'skipDates'>>;

/** A nominal instant as an explained preview shows it: where it fires, or which calendars skip it. */
export interface ExplainedRun {
  at: number;
  skippedBy: readonly string[] | null;
}

/** How many rounds next() looks further for runs a calendar did not skip. */
const SKIP_ROUNDS = 64;

/**
 * When a timer fires: its cron in its zone (`H` resolved for the timer), its interval
 * (`every`, `offset`) in real time, or its one `at`, within its validity window
 * [startAt, endAt); each nominal instant of a cron or an interval then shifted by the
 * timer's jitter. The one place planners, preview, misfire and the executor's checks
 * read a timer's instants from. (maxRuns caps a plan by count: the planners apply it.)
 *
 * The window bounds the nominal instants. A shift is below the schedule's shortest gap,
 * so shifted runs keep their order and each has exactly one nominal instant.
 *
 * Each call has its own evaluation budget: one that would build too much throws
 * ScheduleTooCostlyError naming the schedule instead of stalling the process.
 */
export class TimerSchedule {
  private readonly cron: CronSchedule | null;
  private readonly interval: IntervalSpec | null;
  /** The cron with its H values resolved (null: no cron). */
  readonly resolvedCron: string | null;
  private readonly jitterMs: number;
  /** Dates no run of a cron or interval falls on (null: none). */
  private readonly skip: SkipDates | null;

  constructor(private readonly t: ScheduleFields) {
    this.interval =
      t.everyMs === undefined || t.everyMs === null
        ? null
        : { everyMs: t.everyMs, offsetMs: t.offsetMs ?? 0 };
    this.resolvedCron =
      t.cron === null || this.interval !== null ? null : resolveHashedCron(t.cron, hashSeed(t));
    this.cron = this.resolvedCron === null ? null : parseCron(this.resolvedCron, { allowYear: true });
    this.jitterMs = t.at === null && t.id !== undefined ? (t.jitterMs ?? 0) : 0;
    this.skip = t.at === null && t.skipDates && Object.keys(t.skipDates).length > 0 ? t.skipDates : null;
  }

  /** The calendars that skip the nominal instant `ms` (its date in the timer's zone); null: none. */
  skippedBy(ms: number): readonly string[] | null {
    if (this.skip === null) return null;
    return this.skip[localDate(ms, this.t.timezone)] ?? null;
  }

  /** The next `count` nominal instants after `afterMs`, skipped ones included and named (preview ?explain=true). */
  explain(afterMs: number, count: number): ExplainedRun[] {
    return this.rawNext(afterMs - this.jitterMs, count + 1, this.budget())
      .map((n) => {
        const skippedBy = this.skippedBy(n);
        return { at: skippedBy === null ? this.shift(n) : n, skippedBy };
      })
      .filter((r) => r.at > afterMs)
      .slice(0, count);
  }

  /** Fire instants in [startMs, endMs), ascending. */
  runsBetween(startMs: number, endMs: number): number[] {
    const budget = this.budget();
    if (this.jitterMs === 0) return this.nominalBetween(startMs, endMs, budget);
    // A run shifted into the range may be nominally due up to jitterMs - 1 before it.
    const out: number[] = [];
    for (const n of this.nominalBetween(startMs - this.jitterMs + 1, endMs, budget)) {
      const t = this.shift(n);
      if (t >= startMs && t < endMs) out.push(t);
    }
    return out;
  }

  /** The next `count` instants strictly after `afterMs`. */
  next(afterMs: number, count: number): number[] {
    const budget = this.budget();
    if (this.jitterMs === 0) return this.nominalNext(afterMs, count, budget);
    // At most one nominal instant in (afterMs - jitter, afterMs] is shifted to afterMs or before.
    return this.nominalNext(afterMs - this.jitterMs, count + 1, budget)
      .map((n) => this.shift(n))
      .filter((t) => t > afterMs)
      .slice(0, count);
  }

  /** Does the schedule fire at exactly this instant? */
  firesAt(ms: number): boolean {
    return this.runsBetween(ms, ms + 1).length === 1;
  }

  /**
   * The unshifted instant of the run the schedule makes at `ms` (ms itself without
   * jitter, or when the schedule makes no run there: a run now, a retry of an old plan).
   */
  nominalOf(ms: number): number {
    if (this.jitterMs === 0) return ms;
    for (const n of this.rawBetween(ms - this.jitterMs + 1, ms + 1, this.budget())) {
      if (this.shift(n) === ms) return n;
    }
    return ms;
  }

  /**
   * The shortest time between two consecutive nominal runs from `fromMs` on (null:
   * fewer than two runs): an interval's `every`, a sample of a cron's next runs.
   */
  shortestGap(fromMs: number): number | null {
    if (this.interval !== null) return this.interval.everyMs;
    if (this.cron === null) return null;
    return shortestGapMs(this.cron, this.t.timezone, fromMs, undefined, this.budget());
  }

  /**
   * Before this nothing can fire (a one-shot's `at`, a window's `startAt`): planning may
   * skip ahead to it. Null when the schedule may fire any time.
   */
  get firstPossible(): number | null {
    return this.t.at ?? this.t.startAt;
  }

  /** After this nothing fires again (a one-shot's instant, a window's end, its last shift); null: never ends. */
  get lastPossible(): number | null {
    if (this.t.at !== null) return this.t.at;
    return this.t.endAt === null ? null : this.t.endAt - 1 + Math.max(0, this.jitterMs - 1);
  }

  /** A fresh budget for one call, naming the schedule as its owner wrote it. */
  private budget(): EvaluationBudget {
    const interval = this.interval;
    return interval === null
      ? new EvaluationBudget(() => `cron "${this.t.cron}" in ${this.t.timezone}`)
      : new EvaluationBudget(() => `every ${interval.everyMs} ms`, undefined, 'every');
  }

  private shift(nominal: number): number {
    return nominal + jitterOffset(this.t.id as number, nominal, this.jitterMs);
  }

  /** Nominal instants in [startMs, endMs), inside the window, none on a skipped date. */
  private nominalBetween(startMs: number, endMs: number, budget: EvaluationBudget): number[] {
    const runs = this.rawBetween(startMs, endMs, budget);
    return this.skip === null ? runs : runs.filter((n) => this.skippedBy(n) === null);
  }

  /** The next `count` nominal instants strictly after `afterMs`, none on a skipped date. */
  private nominalNext(afterMs: number, count: number, budget: EvaluationBudget): number[] {
    if (this.skip === null) return this.rawNext(afterMs, count, budget);
    const out: number[] = [];
    let from = afterMs;
    for (let round = 0; round < SKIP_ROUNDS && out.length < count; round++) {
      const batch = this.rawNext(from, Math.max(count, 100), budget);
      for (const n of batch) if (out.length < count && this.skippedBy(n) === null) out.push(n);
      if (batch.length === 0) break;
      from = batch[batch.length - 1] as number;
    }
    return out;
  }

  /** Nominal instants in [startMs, endMs), inside the window. */
  private rawBetween(startMs: number, endMs: number, budget: EvaluationBudget): number[] {
    const from = Math.max(startMs, this.t.startAt ?? startMs);
    const to = Math.min(endMs, this.t.endAt ?? endMs);
    if (to <= from) return [];
    if (this.t.at !== null) return this.t.at >= from && this.t.at < to ? [this.t.at] : [];
    if (this.interval !== null) {
      // Counted before they are built: an interval's instants in a range are known in advance.
      budget.spendInstants(Math.ceil((to - from) / this.interval.everyMs));
      return intervalRuns(this.interval, from, to);
    }
    if (this.cron === null) return [];
    return expandRuns(this.cron, this.t.timezone, from, to, { budget });
  }

  /** The next `count` nominal instants strictly after `afterMs`, inside the window. */
  private rawNext(afterMs: number, count: number, budget: EvaluationBudget): number[] {
    if (this.t.at !== null) return this.rawBetween(afterMs + 1, this.t.at + 1, budget).slice(0, count);
    const from = Math.max(afterMs, (this.t.startAt ?? afterMs + 1) - 1);
    if (this.interval !== null) {
      budget.spendInstants(count);
      return intervalNext(this.interval, from, count, this.t.endAt ?? Infinity);
    }
    if (this.cron === null) return [];
    const runs = nextRuns(this.cron, this.t.timezone, from, count, undefined, budget);
    return this.t.endAt === null ? runs : runs.filter((r) => r < (this.t.endAt as number));
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
