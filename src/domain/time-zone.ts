/**
 * Time-zone arithmetic on epoch milliseconds, built on Intl only.
 *
 * Offsets change at most a few times a year, so callers that walk many instants of
 * one day ask for the offset at the day's edges and only resolve instant by instant
 * when those differ (a DST transition day).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when the runtime knows `timeZone` as an IANA zone (or UTC). */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

const FIXED_ZERO = new Set([
  'UTC',
  'Etc/UTC',
  'GMT',
  'Etc/GMT',
  'Etc/UCT',
  'UCT',
  'Zulu',
  'Etc/Zulu',
  'Universal',
]);

/** Local wall-clock fields of an instant. Month is 1-12, weekday 0 (Sunday) - 6. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Offset of `timeZone` from UTC at instant `utcMs`, in milliseconds (east positive). */
export function offsetAt(timeZone: string, utcMs: number): number {
  if (FIXED_ZERO.has(timeZone)) return 0;
  const seconds = Math.floor(utcMs / 1000) * 1000;
  const w = wallTimeAt(timeZone, seconds);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - seconds;
}

export function wallTimeAt(timeZone: string, utcMs: number): WallTime {
  if (FIXED_ZERO.has(timeZone)) {
    const d = new Date(utcMs);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    };
  }
  const w: WallTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timeZone).formatToParts(utcMs)) {
    switch (part.type) {
      case 'year':
        w.year = Number(part.value);
        break;
      case 'month':
        w.month = Number(part.value);
        break;
      case 'day':
        w.day = Number(part.value);
        break;
      case 'hour':
        w.hour = Number(part.value);
        break;
      case 'minute':
        w.minute = Number(part.value);
        break;
      case 'second':
        w.second = Number(part.value);
        break;
      default:
        break;
    }
  }
  return w;
}

const HALF_DAY = 12 * 3600_000;

/**
 * The instant at which the wall clock of `timeZone` shows `wallMs` (a wall time
 * written as if it were UTC). SPEC §6: a wall time inside a DST gap resolves to the
 * shifted instant (02:30 in a spring-forward gap fires at 03:30), and a wall time that
 * occurs twice in an overlap resolves to its first occurrence only.
 */
export function wallToInstant(timeZone: string, wallMs: number): number {
  const before = offsetAt(timeZone, wallMs - HALF_DAY);
  const after = offsetAt(timeZone, wallMs + HALF_DAY);
  if (before === after) return wallMs - before;
  const early = wallMs - before;
  const late = wallMs - after;
  const earlyValid = offsetAt(timeZone, early) === before;
  const lateValid = offsetAt(timeZone, late) === after;
  if (earlyValid && lateValid) return Math.min(early, late);
  if (earlyValid) return early;
  if (lateValid) return late;
  // In the gap: read the wall time with the offset in force before the jump.
  return early;
}

/** ISO-8601 with the zone's offset, e.g. `2026-11-22T10:00:00.000+08:00`. */
export function formatInZone(utcMs: number, timeZone: string): string {
  const offset = offsetAt(timeZone, utcMs);
  const local = new Date(utcMs + offset).toISOString().slice(0, 23);
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset) / 60_000;
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}
