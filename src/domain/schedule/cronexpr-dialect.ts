import { CronExpressionParser } from 'cron-parser';
import { type CronSchedule, CronSyntaxError, parseCron } from './cron-schedule.js';

/**
 * The cron dialect of the Go xTimer: github.com/gorhill/cronexpr, which its
 * pkg/cron/parser.go calls. There, 5 fields are minute … day-of-week (second 0, any
 * year); 6 fields are the same five plus a trailing YEAR (where the native API reads 6
 * fields as seconds first); 7 fields are second … day-of-week plus year. The macros are
 * @yearly, @annually, @monthly, @weekly, @daily and @hourly (no @reboot, no others).
 *
 * A Go client's expression is checked against cronexpr's own grammar and read into the
 * native form that the native parser reads the same way: the 5-field form when the
 * second is 0 and any year will do, else the 7-field form (seconds first, year last).
 * Never a 6-field form, which the two dialects read differently.
 */

const MAX_CRON_LENGTH = 128;

/**
 * cronexpr's macros and their 5-field forms. cron-parser defines these six the same way, so a native one shows as is.
 * A Map, not an object: a client's `__proto__` or `toString` must not find a prototype's member.
 */
const MACROS: ReadonlyMap<string, string> = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

const MONTHS = 'january february march april may june july august september october november december';
const DAYS = 'sunday monday tuesday wednesday thursday friday saturday';
/** Three-letter and full names, as cronexpr takes them (case-insensitive). */
const names = (list: string) => list.split(' ').flatMap((n) => [n.slice(0, 3), n]);
/** cron-parser knows only the three-letter names. */
const FULL_NAME = new RegExp(
  `${MONTHS} ${DAYS}`
    .split(' ')
    .filter((n) => n.length > 3)
    .join('|'),
  'g',
);

interface Field {
  /** The native name, as native cron errors name fields. */
  name: string;
  /** cronexpr's pattern of one value of the field. */
  value: string;
  /** The largest value, and the largest step cronexpr allows. */
  max: number;
}

const SECOND: Field = { name: 'second', value: '0?[0-9]|[1-5][0-9]', max: 59 };
const MINUTE: Field = { ...SECOND, name: 'minute' };
const HOUR: Field = { name: 'hour', value: '0?[0-9]|1[0-9]|2[0-3]', max: 23 };
const DAY_OF_MONTH: Field = { name: 'dayOfMonth', value: '0?[1-9]|[12][0-9]|3[01]', max: 31 };
const MONTH: Field = { name: 'month', value: ['0?[1-9]|1[012]', ...names(MONTHS)].join('|'), max: 12 };
const DAY_OF_WEEK: Field = { name: 'dayOfWeek', value: ['0?[0-7]', ...names(DAYS)].join('|'), max: 6 };
const YEAR: Field = { name: 'year', value: '19[789][0-9]|20[0-9]{2}', max: 2099 };

const LAYOUTS: ReadonlyMap<number, readonly Field[]> = new Map([
  [5, [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK]],
  [6, [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR]],
  [7, [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR]],
]);

/** A step is one of cronexpr's number tokens (0-59, 00-09, 1970-2099) and must lie in 1 … the field's max. */
const STEP_TOKEN = /^(?:0?[0-9]|[1-5][0-9]|19[789][0-9]|20[0-9]{2})$/;

const fieldError = (field: Field, message: string) => new CronSyntaxError({ field: field.name, message });

/** Checks one comma-separated entry (lower-cased: cronexpr ignores case) against cronexpr's layouts (cronexpr_parse.go). */
function checkEntry(entry: string, field: Field, written: string): void {
  const v = `(?:${field.value})`;
  if (/^[*?]$/.test(entry) || new RegExp(`^${v}(?:-${v})?$`).test(entry)) return;
  const stepped = new RegExp(`^(?:\\*|${v}|${v}-${v})/(\\d+)$`).exec(entry);
  if (stepped) {
    const step = STEP_TOKEN.test(stepped[1]!) ? Number(stepped[1]) : 0;
    if (step < 1 || step > field.max) {
      throw fieldError(field, `"${written}": the step must be 1-${field.max}`);
    }
    return;
  }
  if (field === DAY_OF_MONTH) {
    if (entry === 'l') return;
    if (entry === 'lw' || new RegExp(`^${v}w$`).test(entry)) {
      throw fieldError(field, `"${written}": W (nearest weekday) is cronexpr syntax xtimer does not run`);
    }
  }
  if (field === DAY_OF_WEEK && new RegExp(`^${v}(?:l|#[1-5])$`).test(entry)) return;
  throw fieldError(field, `"${written}" is not a value, range, step, or list of them`);
}

/** One field in native syntax: cronexpr skips empty list entries; cron-parser knows only short names and an upper-case L. */
function nativeField(text: string, field: Field): string {
  const entries = text.split(',').filter(Boolean);
  if (entries.length === 0) throw fieldError(field, `"${text}" has no value`);
  return entries
    .map((written) => {
      const entry = written.toLowerCase();
      checkEntry(entry, field, written);
      return entry.replace(FULL_NAME, (n) => n.slice(0, 3)).toUpperCase();
    })
    .join(',');
}

const isAnyYear = (token: string) => token === '*' || token === '?';

/**
 * Reads a Go xTimer cron expression as cronexpr does and returns the native expression
 * that fires at the same instants. Throws CronSyntaxError, naming the field, when
 * cronexpr would refuse it, or when it uses cronexpr syntax xtimer cannot run (W).
 */
export function nativeFromCronexpr(expression: string): string {
  const source = expression.trim();
  if (source.length === 0) throw new CronSyntaxError({ message: 'is empty' });
  if (source.length > MAX_CRON_LENGTH) {
    throw new CronSyntaxError({ message: `is longer than ${MAX_CRON_LENGTH} characters` });
  }
  const macro = MACROS.get(source);
  if (macro !== undefined) return macro;
  const fields = source.split(/\s+/);
  const layout = LAYOUTS.get(fields.length);
  if (!layout) {
    throw new CronSyntaxError({
      message: `has ${fields.length} fields, expected 5, 6 (the last one a year) or 7 (seconds first, year last), or one of ${[...MACROS.keys()].join(' ')}`,
    });
  }
  const tokens = fields.map((text, i) => nativeField(text, layout[i]!));
  const second = fields.length === 7 ? tokens.shift()! : '0';
  const year = fields.length === 5 ? '*' : tokens.pop()!;
  const native =
    isAnyYear(year) && /^0?0$/.test(second) ? tokens.join(' ') : [second, ...tokens, year].join(' ');
  // What cronexpr reads but the native parser refuses (a range written high-low, a list of #) is refused here too.
  parseCron(native, { allowYear: true });
  return native;
}

function sameValues(a: Iterable<number>, b: Iterable<number>): boolean {
  const x = [...a].sort((m, n) => m - n);
  const y = [...b].sort((m, n) => m - n);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** cronexpr's years: 1970-2099. A null year set is any year. */
function sameYears(a: ReadonlySet<number> | null, b: ReadonlySet<number> | null): boolean {
  for (let y = 1970; y <= 2099; y++) {
    if ((a === null || a.has(y)) !== (b === null || b.has(y))) return false;
  }
  return true;
}

function sameSchedule(a: CronSchedule, b: CronSchedule): boolean {
  return (
    sameValues(a.seconds, b.seconds) &&
    sameValues(a.minutes, b.minutes) &&
    sameValues(a.hours, b.hours) &&
    sameValues(a.months, b.months) &&
    a.domAny === b.domAny &&
    sameValues(a.domDays, b.domDays) &&
    a.domLast === b.domLast &&
    a.dowAny === b.dowAny &&
    sameValues(a.dowDays, b.dowDays) &&
    sameValues(a.dowLast, b.dowLast) &&
    a.nth === b.nth &&
    a.frequent === b.frequent &&
    sameYears(a.years, b.years)
  );
}

/** Does cronexpr read `candidate` as the native parser reads `native`? */
function readsAlike(candidate: string, native: string): boolean {
  try {
    return sameSchedule(
      parseCron(nativeFromCronexpr(candidate), { allowYear: true }),
      parseCron(native, { allowYear: true }),
    );
  } catch {
    return false;
  }
}

/** cron-parser's own spelling of the schedule, seconds first, with the year appended. */
function spelledOut(native: string): string {
  const fields = native.split(' ');
  const year = fields.length === 7 ? fields.pop()! : '*';
  try {
    return `${CronExpressionParser.parse(fields.join(' '), { tz: 'UTC' }).fields.stringify(true)} ${year}`;
  } catch {
    return native;
  }
}

/**
 * A native expression as a Go client must read it: as written when cronexpr reads it
 * the same way (5 or 7 fields, the six shared macros), a 6-field one with a year
 * appended, anything else (cron-parser's other macros, its own syntax) spelled out.
 */
export function cronexprFromNative(native: string): string {
  const source = native.trim().replace(/\s+/g, ' ');
  if (MACROS.has(source)) return source;
  if (!source.startsWith('@')) {
    const candidate = source.split(' ').length === 6 ? `${source} *` : source;
    if (readsAlike(candidate, source)) return candidate;
  }
  return spelledOut(source);
}
