import { CronExpressionParser } from 'cron-parser';
import { EvaluationBudget } from '../evaluation-budget.js';
import { EarliestInstants } from './earliest-instants.js';
import { MAX_OFFSET, OffsetTimeline } from './time-zone.js';

/**
 * Cron schedules: parsing (through cron-parser, so the syntax is the one BullMQ users
 * know) and a fast expansion of a schedule over a half-open window [start, end): the
 * one place every fire time is computed (planning, preview, misfire, the compatible API).
 *
 * cron-parser's own iterator costs ~60 µs per run; the migrator must place 50k+ runs
 * per second, so expansion walks the parsed field sets directly: a day at a time, with
 * one zone offset for every day the offset does not change, and wall times resolved one
 * by one under the DST rule on the days it does.
 *
 * Every expansion is bounded (evaluation-budget.ts): days are found a field at a time
 * (a year or month the cron does not name is skipped whole, never walked), instants are
 * built only on matching days and only until the call has as many as it asked for.
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
   * follows real time across DST changes; otherwise it names fixed wall times.
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

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Arithmetic, not Date objects: day lookups run for every day a plan or a search visits.
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number);
}

/** The weekday of a midnight written as if UTC, 0 = Sunday (1970-01-01 was a Thursday). */
function weekdayAt(dayMs: number): number {
  return (((Math.floor(dayMs / DAY) + 4) % 7) + 7) % 7;
}

/** Year, month (1-12) and day of a day's midnight written as if UTC (Hinnant's civil_from_days). */
function civilDate(dayMs: number): { year: number; month: number; day: number } {
  const z = Math.floor(dayMs / DAY) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return {
    year: yoe + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: doy - Math.floor((153 * mp + 2) / 5) + 1,
  };
}

/** Does the schedule fire on this local calendar day? (Vixie rule: if both day fields are restricted, either may match.) */
export function matchesDay(s: CronSchedule, year: number, month: number, day: number): boolean {
  return matchesDayOf(s, year, month, day, weekdayAt(Date.UTC(year, month - 1, day)));
}

function matchesDayOf(s: CronSchedule, year: number, month: number, day: number, weekday: number): boolean {
  if (s.years && !s.years.has(year)) return false;
  if (!s.months.has(month)) return false;
  if (s.domAny && s.dowAny) return true;
  const last = daysInMonth(year, month);
  let domMatch = s.domDays.has(day) || (s.domLast && day === last);
  for (const w of s.domWeekdays) if (!domMatch && nearestWeekday(year, month, w) === day) domMatch = true;
  const dowMatch =
    (s.dowDays.has(weekday) && (s.nth === 0 || Math.ceil(day / 7) === s.nth)) ||
    (s.dowLast.has(weekday) && day + 7 > last);
  if (s.domAny) return dowMatch;
  if (s.dowAny) return domMatch;
  return domMatch || dowMatch;
}

/** Years a 7-field cron may name (parseYearField). */
const LAST_YEAR = 2199;

/**
 * The first local day in [fromDay, lastDay] (midnights written as if UTC) on which the
 * schedule fires, or null. A year or month it does not name is skipped whole, and a
 * day-of-month-only field is read as its list of days, so a sparse schedule (one year,
 * the 31st, `L`, `#`) costs a look per candidate day, never an instant.
 */
export function firstMatchingDay(
  s: CronSchedule,
  fromDay: number,
  lastDay: number,
  budget: EvaluationBudget,
): number | null {
  let { year, month, day } = civilDate(fromDay);
  let t = Date.UTC(year, month - 1, day);
  // Only some days of the month and any weekday: those days are the candidates.
  const domOnly = !s.domAny && s.dowAny && !s.domLast && s.domWeekdays.size === 0;
  for (;;) {
    if (t > lastDay) return null;
    if (s.years !== null && !s.years.has(year)) {
      let next = year + 1;
      while (next <= LAST_YEAR && !s.years.has(next)) next++;
      if (next > LAST_YEAR) return null;
      [year, month, day] = [next, 1, 1];
      t = Date.UTC(year, 0, 1);
      continue;
    }
    if (!s.months.has(month)) {
      month++;
      while (month <= 12 && !s.months.has(month)) month++;
      if (month > 12) [year, month] = [year + 1, 1];
      day = 1;
      t = Date.UTC(year, month - 1, 1);
      continue;
    }
    const last = daysInMonth(year, month);
    for (; day <= last; day++, t += DAY) {
      if (domOnly && !s.domDays.has(day)) continue;
      if (t > lastDay) return null;
      budget.spendDay();
      if (matchesDayOf(s, year, month, day, weekdayAt(t))) return t;
    }
    day = 1;
    if (++month > 12) [year, month] = [year + 1, 1];
  }
}

/**
 * Fire instants of one day whose local midnight is the instant `midnight` (no offset
 * change that day), ascending, none past `found.cut`. Returns how many it built.
 */
function expandDay(
  schedule: CronSchedule,
  midnight: number,
  startMs: number,
  endMs: number,
  found: EarliestInstants,
): number {
  let built = 0;
  for (const h of schedule.hours) {
    const hourStart = midnight + h * HOUR;
    if (hourStart + HOUR <= startMs) continue;
    if (hourStart >= endMs) return built;
    for (const m of schedule.minutes) {
      const minuteStart = hourStart + m * 60_000;
      if (minuteStart + 60_000 <= startMs) continue;
      if (minuteStart >= endMs) return built;
      for (const s of schedule.seconds) {
        const t = minuteStart + s * 1000;
        if (t < startMs) continue;
        if (t >= endMs || t > found.cut) return built;
        found.add(t);
        built++;
      }
    }
  }
  return built;
}

/**
 * Fire instants of one local day (its midnight written as if UTC: `dayWall`) on which
 * the offset changes: each matching wall time resolved under the DST rule — a frequent
 * schedule at every instant showing it, a fixed one once. Unordered.
 * A wall time every reading of which lies past `found.cut` is not built. Returns how many
 * wall times it resolved.
 */
function expandChangingDay(
  schedule: CronSchedule,
  timeline: OffsetTimeline,
  dayWall: number,
  startMs: number,
  endMs: number,
  found: EarliestInstants,
): number {
  // Wall times in [from, to) resolve into the window only if read with one of these offsets.
  const offsets = timeline.offsetsInto(startMs, endMs, !schedule.frequent);
  const outside = (from: number, to: number) => offsets.every((o) => to - o <= startMs || from - o >= endMs);
  const greatest = Math.max(...offsets);
  const instants: number[] = [];
  let resolved = 0;
  for (const h of schedule.hours) {
    const hourWall = dayWall + h * HOUR;
    if (hourWall - greatest > found.cut) return resolved;
    if (outside(hourWall, hourWall + HOUR)) continue;
    for (const m of schedule.minutes) {
      const minuteWall = hourWall + m * 60_000;
      if (minuteWall - greatest > found.cut) return resolved;
      if (outside(minuteWall, minuteWall + 60_000)) continue;
      for (const s of schedule.seconds) {
        instants.length = 0;
        timeline.resolve(minuteWall + s * 1000, schedule.frequent, instants);
        resolved++;
        for (const t of instants) if (t >= startMs && t < endMs) found.add(t);
      }
    }
  }
  return resolved;
}

/** A budget naming the cron and zone, for a call that brings none. */
export function cronBudget(schedule: CronSchedule, timeZone: string): EvaluationBudget {
  return new EvaluationBudget(() => `cron "${schedule.source}" in ${timeZone}`);
}

export interface ExpandOptions {
  /** Stop once this many (the earliest) instants are known. */
  limit?: number;
  /** The call's budget, shared by every expansion it makes. */
  budget?: EvaluationBudget;
}

/**
 * All fire instants of `schedule` in `timeZone` with start <= t < end, ascending and
 * unique (the earliest `limit` of them, if given). Half-open, so consecutive windows
 * neither lose nor double a boundary run.
 */
export function expandRuns(
  schedule: CronSchedule,
  timeZone: string,
  startMs: number,
  endMs: number,
  { limit = Number.POSITIVE_INFINITY, budget = cronBudget(schedule, timeZone) }: ExpandOptions = {},
): number[] {
  if (endMs <= startMs || limit <= 0) return [];
  const found = new EarliestInstants(limit);
  const timeline = OffsetTimeline.of(timeZone, startMs - DAY - 2 * MAX_OFFSET, endMs + DAY + 2 * MAX_OFFSET);
  const { minOffset, maxOffset } = timeline;
  // The local days whose wall times can resolve into the window.
  const firstDay = Math.floor((startMs + minOffset) / DAY) * DAY;
  const lastDay = Math.floor((endMs + maxOffset) / DAY) * DAY;
  for (
    let dayWall = firstMatchingDay(schedule, firstDay, lastDay, budget);
    dayWall !== null;
    dayWall = firstMatchingDay(schedule, dayWall + DAY, lastDay, budget)
  ) {
    if (timeline.changesBetween(dayWall - maxOffset, dayWall + DAY - minOffset + 1)) {
      budget.spendInstants(expandChangingDay(schedule, timeline, dayWall, startMs, endMs, found));
    } else {
      const midnight = dayWall - timeline.offsetAt(dayWall - maxOffset);
      budget.spendInstants(expandDay(schedule, midnight, startMs, endMs, found));
    }
    // No later day shows a wall time that resolves before its midnight less the greatest offset.
    if (found.cut < dayWall + DAY - maxOffset) break;
  }
  return found.result();
}

/**
 * The next `count` fire instants strictly after `afterMs`, searching at most `horizonMs`
 * ahead: from the next day the schedule names (a stretch without one is skipped, not
 * walked), in spans growing fourfold from a minute, each expanded only until the count
 * is reached. The executor asks this of every run past its misfire threshold.
 */
export function nextRuns(
  schedule: CronSchedule,
  timeZone: string,
  afterMs: number,
  count: number,
  horizonMs = 5 * 366 * DAY,
  budget = cronBudget(schedule, timeZone),
): number[] {
  const out: number[] = [];
  const end = afterMs + horizonMs;
  let from = afterMs + 1;
  let span = MINUTE;
  // The first day at or after the one `from` may show that the schedule names.
  let day: number | null = Number.NEGATIVE_INFINITY;
  while (out.length < count && from < end) {
    // No instant before a day's midnight less the greatest offset shows that day.
    const fromDay = Math.floor((from - MAX_OFFSET) / DAY) * DAY;
    if (day < fromDay)
      day = firstMatchingDay(schedule, fromDay, Math.floor((end + MAX_OFFSET) / DAY) * DAY, budget);
    if (day === null) break;
    if (day - MAX_OFFSET > from) {
      from = day - MAX_OFFSET;
      span = MINUTE;
      if (from >= end) break;
    }
    const to = Math.min(from + span, end);
    for (const t of expandRuns(schedule, timeZone, from, to, { limit: count - out.length, budget })) {
      out.push(t);
    }
    from = to;
    span = Math.min(span * 4, 400 * DAY);
  }
  return out;
}
