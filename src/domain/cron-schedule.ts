import { CronExpressionParser } from 'cron-parser';
import { MAX_OFFSET, OffsetTimeline } from './time-zone.js';

/**
 * Cron schedules: parsing (through cron-parser, so the syntax is the one BullMQ users
 * know) and a fast expansion of a schedule over a half-open window [start, end): the
 * one place every fire time is computed (planning, preview, misfire, the compatible API).
 *
 * cron-parser's own iterator costs ~60 µs per run; the migrator must place 50k+ runs
 * per second, so expansion walks the parsed field sets directly: a day at a time, with
 * one zone offset for every day the offset does not change, and wall times resolved one
 * by one under the DST rule (SPEC §6) on the days it does.
 */

export const CRON_FIELDS_5 = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;
export const CRON_FIELDS_6 = ['second', ...CRON_FIELDS_5] as const;
export const CRON_FIELDS_7 = [...CRON_FIELDS_6, 'year'] as const;

const MAX_CRON_LENGTH = 128;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface CronSchedule {
  readonly source: string;
  readonly hasSeconds: boolean;
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly months: ReadonlySet<number>;
  readonly domAny: boolean;
  readonly domDays: ReadonlySet<number>;
  readonly domLast: boolean;
  /**
   * Days written `nW` (Quartz): the weekday nearest day n, within its month; 0 stands for
   * `LW`, the month's last weekday. cron-parser knows no W: it is taken out before it parses.
   */
  readonly domWeekdays: ReadonlySet<number>;
  readonly dowAny: boolean;
  readonly dowDays: ReadonlySet<number>;
  /** Weekdays written `dL`: the last such weekday of the month. */
  readonly dowLast: ReadonlySet<number>;
  /** `d#n`: only the n-th such weekday of the month (0 = no restriction). */
  readonly nth: number;
  /** Year restriction of a 7-field (xtimer-compatible) expression; null = any. */
  readonly years: ReadonlySet<number> | null;
  /**
   * The minute or the hour field starts with `*` (or `?`, the same): the schedule
   * follows real time across DST changes; otherwise it names fixed wall times (SPEC §6).
   */
  readonly frequent: boolean;
}

/** What is wrong with an expression, naming the field when one field is at fault. */
export interface CronProblem {
  field?: string;
  message: string;
}

export class CronSyntaxError extends Error {
  constructor(readonly problem: CronProblem) {
    super(problem.field ? `${problem.field}: ${problem.message}` : problem.message);
  }
}

export interface ParseOptions {
  /** Accept a 7th, trailing year field (the Go xtimer's format). */
  allowYear?: boolean;
}

function splitFields(expression: string): string[] {
  return expression.trim().split(/\s+/).filter(Boolean);
}

/** Explains why `expression` is not a valid cron, or returns null if it is. */
export function findCronProblem(expression: string, options: ParseOptions = {}): CronProblem | null {
  try {
    parseCron(expression, options);
    return null;
  } catch (err) {
    if (err instanceof CronSyntaxError) return err.problem;
    return { message: (err as Error).message };
  }
}

/**
 * Parsed schedules by expression: cron-parser costs ~100 µs a parse (it builds luxon
 * dates), and the migrator parses every timer's cron each window; most timers share a
 * handful of expressions. Schedules are immutable, so sharing them is safe.
 */
const parsed = new Map<string, CronSchedule>();
const PARSED_MAX = 10_000;

export function parseCron(expression: string, options: ParseOptions = {}): CronSchedule {
  const cacheKey = `${options.allowYear ? 'y' : 'n'}${expression}`;
  const hit = parsed.get(cacheKey);
  if (hit) return hit;
  const schedule = parseUncached(expression, options);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(cacheKey, schedule);
  return schedule;
}

function parseUncached(expression: string, options: ParseOptions): CronSchedule {
  const source = expression.trim().replace(/\s+/g, ' ');
  if (source.length === 0) throw new CronSyntaxError({ message: 'is empty' });
  // The expression is stored as given, white space and all: its own length is what must fit.
  if (expression.length > MAX_CRON_LENGTH) {
    throw new CronSyntaxError({ message: `is longer than ${MAX_CRON_LENGTH} characters` });
  }
  if (source.startsWith('@')) return fromParser(source, source, null);

  const fields = splitFields(source);
  const maxFields = options.allowYear ? 7 : 6;
  if (fields.length < 5 || fields.length > maxFields) {
    const allowed = options.allowYear ? '5, 6 or 7' : '5 or 6';
    throw new CronSyntaxError({ message: `has ${fields.length} fields, expected ${allowed}` });
  }
  const names = fields.length === 5 ? CRON_FIELDS_5 : fields.length === 6 ? CRON_FIELDS_6 : CRON_FIELDS_7;
  let years: Set<number> | null = null;
  let cronFields = fields;
  if (fields.length === 7) {
    years = parseYearField(fields[6]!);
    cronFields = fields.slice(0, 6);
  }
  // W in the day of month (cron-parser has no W): taken out here, matched in matchesDay.
  const domIndex = fields.length === 5 ? 2 : 3;
  const weekdays = takeWeekdays(cronFields[domIndex]!);
  if (weekdays.size > 0) {
    cronFields = [...cronFields];
    cronFields[domIndex] = weekdays.rest ?? '*';
  }
  try {
    const schedule = fromParser(source, cronFields.join(' '), years);
    if (weekdays.size === 0) return schedule;
    return {
      ...schedule,
      domWeekdays: weekdays.days,
      domAny: false,
      // The field was W items only: no plain day matches.
      domDays: weekdays.rest === null ? new Set() : schedule.domDays,
    };
  } catch (err) {
    // Check each field on its own, so the error can say which one is wrong.
    const wildcard = cronFields.map(() => '*');
    for (let i = 0; i < cronFields.length; i++) {
      const probe = [...wildcard];
      probe[i] = cronFields[i]!;
      try {
        CronExpressionParser.parse(probe.join(' '), { tz: 'UTC' });
      } catch (fieldErr) {
        throw new CronSyntaxError({
          field: names[i]!,
          message: describeParserError(cronFields[i]!, fieldErr),
        });
      }
    }
    throw err;
  }
}

/** The `nW` and `LW` items of a day-of-month field, and the rest of it (null: nothing else). */
function takeWeekdays(field: string): { days: Set<number>; size: number; rest: string | null } {
  const days = new Set<number>();
  const rest: string[] = [];
  for (const item of field.split(',')) {
    const m = /^([1-9]|[12][0-9]|3[01])W$/.exec(item);
    if (m) days.add(Number(m[1]));
    else if (item === 'LW') days.add(0);
    else rest.push(item);
  }
  return { days, size: days.size, rest: rest.length === 0 ? null : rest.join(',') };
}

/** The weekday nearest `day` (Quartz's W) in its month, or null if the month has no such day. */
function nearestWeekday(year: number, month: number, day: number): number | null {
  const last = daysInMonth(year, month);
  if (day === 0) {
    // LW: the month's last weekday.
    const weekday = new Date(Date.UTC(year, month - 1, last)).getUTCDay();
    return weekday === 6 ? last - 1 : weekday === 0 ? last - 2 : last;
  }
  if (day > last) return null;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  if (weekday === 6) return day === 1 ? 3 : day - 1;
  if (weekday === 0) return day === last ? day - 2 : day + 1;
  return day;
}

function describeParserError(value: string, err: unknown): string {
  const msg = (err as Error).message ?? String(err);
  const range = /expected range (\d+-\d+)/.exec(msg);
  if (range) return `"${value}" is out of range ${range[1]}`;
  return `"${value}" is not valid (${msg})`;
}

function parseYearField(field: string): Set<number> {
  const years = new Set<number>();
  const fail = (): never => {
    throw new CronSyntaxError({
      field: 'year',
      message: `"${field}" is not a year, range or list in 1970-2199`,
    });
  };
  for (const part of field.split(',')) {
    const [rangePart, stepPart] = part.split('/');
    const step = stepPart === undefined ? 1 : Number(stepPart);
    if (!Number.isInteger(step) || step < 1) fail();
    let lo = 1970;
    let hi = 2199;
    if (rangePart !== '*' && rangePart !== '?') {
      const [a, b] = (rangePart ?? '').split('-');
      lo = Number(a);
      hi = b === undefined ? (stepPart === undefined ? lo : 2199) : Number(b);
      if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 1970 || hi > 2199 || lo > hi) fail();
    }
    for (let y = lo; y <= hi; y += step) years.add(y);
  }
  return years;
}

function fromParser(source: string, expression: string, years: Set<number> | null): CronSchedule {
  let parsed: ReturnType<typeof CronExpressionParser.parse>;
  try {
    parsed = CronExpressionParser.parse(expression, { tz: 'UTC' });
  } catch (err) {
    throw new CronSyntaxError({ message: describeParserError(expression, err) });
  }
  const f = parsed.fields;
  const numbers = (values: readonly (number | string)[]) =>
    values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
  const dowValues = f.dayOfWeek.values as readonly (number | string)[];
  const dowDays = new Set(numbers(dowValues).map((d) => d % 7));
  const dowLast = new Set(
    dowValues
      .filter((v): v is string => typeof v === 'string' && v.endsWith('L'))
      .map((v) => Number(v[0]) % 7),
  );
  const domValues = f.dayOfMonth.values as readonly (number | string)[];
  const fieldCount = splitFields(expression).length;
  // A macro's fields as cron-parser spells them (`@hourly` is `0 0 * * * *`); else as written.
  const written = source.startsWith('@') ? f.stringify(true).split(' ') : splitFields(expression);
  const [minute, hour] = fieldCount === 5 ? written : written.slice(1);
  return {
    source,
    hasSeconds: !source.startsWith('@') && fieldCount >= 6,
    seconds: numbers(f.second.values),
    minutes: numbers(f.minute.values),
    hours: numbers(f.hour.values),
    months: new Set(numbers(f.month.values)),
    domAny: f.dayOfMonth.isWildcard,
    domDays: new Set(numbers(domValues)),
    domLast: domValues.includes('L'),
    domWeekdays: new Set<number>(),
    dowAny: f.dayOfWeek.isWildcard,
    dowDays,
    dowLast,
    nth: (f.dayOfWeek as unknown as { nthDay?: number }).nthDay ?? 0,
    years,
    frequent: /^[*?]/.test(minute ?? '') || /^[*?]/.test(hour ?? ''),
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Does the schedule fire on this local calendar day? (Vixie rule: if both day fields are restricted, either may match.) */
export function matchesDay(s: CronSchedule, year: number, month: number, day: number): boolean {
  if (s.years && !s.years.has(year)) return false;
  if (!s.months.has(month)) return false;
  if (s.domAny && s.dowAny) return true;
  const last = daysInMonth(year, month);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  let domMatch = s.domDays.has(day) || (s.domLast && day === last);
  for (const w of s.domWeekdays) if (!domMatch && nearestWeekday(year, month, w) === day) domMatch = true;
  const dowMatch =
    (s.dowDays.has(weekday) && (s.nth === 0 || Math.ceil(day / 7) === s.nth)) ||
    (s.dowLast.has(weekday) && day + 7 > last);
  if (s.domAny) return dowMatch;
  if (s.dowAny) return domMatch;
  return domMatch || dowMatch;
}

/** Fire instants of one day whose local midnight is the instant `midnight` (no offset change that day). */
function expandDay(
  schedule: CronSchedule,
  midnight: number,
  startMs: number,
  endMs: number,
  out: number[],
): void {
  for (const h of schedule.hours) {
    const hourStart = midnight + h * HOUR;
    if (hourStart + HOUR <= startMs) continue;
    if (hourStart >= endMs) return;
    for (const m of schedule.minutes) {
      const minuteStart = hourStart + m * 60_000;
      if (minuteStart + 60_000 <= startMs) continue;
      if (minuteStart >= endMs) return;
      for (const s of schedule.seconds) {
        const t = minuteStart + s * 1000;
        if (t < startMs) continue;
        if (t >= endMs) return;
        out.push(t);
      }
    }
  }
}

/**
 * Fire instants of one local day (its midnight written as if UTC: `dayWall`) on which
 * the offset changes: each matching wall time resolved under the DST rule — a frequent
 * schedule at every instant showing it, a fixed one once (SPEC §6). Unordered.
 */
function expandChangingDay(
  schedule: CronSchedule,
  timeline: OffsetTimeline,
  dayWall: number,
  startMs: number,
  endMs: number,
  out: number[],
): void {
  // Wall times in [from, to) resolve to instants in [from - maxOffset, to - minOffset).
  const outside = (from: number, to: number) =>
    to - timeline.minOffset <= startMs || from - timeline.maxOffset >= endMs;
  const instants: number[] = [];
  for (const h of schedule.hours) {
    const hourWall = dayWall + h * HOUR;
    if (outside(hourWall, hourWall + HOUR)) continue;
    for (const m of schedule.minutes) {
      const minuteWall = hourWall + m * 60_000;
      if (outside(minuteWall, minuteWall + 60_000)) continue;
      for (const s of schedule.seconds) {
        instants.length = 0;
        timeline.resolve(minuteWall + s * 1000, schedule.frequent, instants);
        for (const t of instants) if (t >= startMs && t < endMs) out.push(t);
      }
    }
  }
}

/**
 * All fire instants of `schedule` in `timeZone` with start <= t < end, ascending and
 * unique. Half-open, so consecutive windows neither lose nor double a boundary run.
 */
export function expandRuns(
  schedule: CronSchedule,
  timeZone: string,
  startMs: number,
  endMs: number,
): number[] {
  const out: number[] = [];
  if (endMs <= startMs) return out;
  const timeline = OffsetTimeline.of(timeZone, startMs - DAY - 2 * MAX_OFFSET, endMs + DAY + 2 * MAX_OFFSET);
  const { minOffset, maxOffset } = timeline;
  // The local days whose wall times can resolve into the window.
  const firstDay = Math.floor((startMs + minOffset) / DAY) * DAY;
  const lastDay = Math.floor((endMs + maxOffset) / DAY) * DAY;
  let needsSort = false;
  for (let dayWall = firstDay; dayWall <= lastDay; dayWall += DAY) {
    const date = new Date(dayWall);
    if (!matchesDay(schedule, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())) continue;
    if (timeline.changesBetween(dayWall - maxOffset, dayWall + DAY - minOffset + 1)) {
      needsSort = true;
      expandChangingDay(schedule, timeline, dayWall, startMs, endMs, out);
    } else {
      expandDay(schedule, dayWall - timeline.offsetAt(dayWall - maxOffset), startMs, endMs, out);
    }
  }
  if (!needsSort) return out;
  out.sort((a, b) => a - b);
  let w = 0;
  for (let r = 0; r < out.length; r++) {
    if (r === 0 || out[r] !== out[r - 1]) out[w++] = out[r]!;
  }
  out.length = w;
  return out;
}

/**
 * The next `count` fire instants strictly after `afterMs`, searching at most `horizonMs`
 * ahead, in spans growing fourfold from a minute: the executor asks this of every run
 * past its misfire threshold, and an hour of an every-second cron is 3,600 instants.
 */
export function nextRuns(
  schedule: CronSchedule,
  timeZone: string,
  afterMs: number,
  count: number,
  horizonMs = 5 * 366 * DAY,
): number[] {
  const out: number[] = [];
  let from = afterMs + 1;
  let span = MINUTE;
  while (out.length < count && from < afterMs + horizonMs) {
    const to = Math.min(from + span, afterMs + horizonMs);
    for (const t of expandRuns(schedule, timeZone, from, to)) {
      out.push(t);
      if (out.length === count) break;
    }
    from = to;
    span = Math.min(span * 4, 400 * DAY);
  }
  return out;
}
