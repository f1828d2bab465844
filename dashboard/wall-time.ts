import { formatInZone, wallToInstant } from '../src/domain/schedule/time-zone.js';
import { ErrorCode, XtimerError } from '../src/errors.js';

/**
 * Times as people type and read them on the console's pages: a wall time in a timer's
 * zone (`2026-11-22 18:15:03`), an ISO time with its offset, or epoch ms.
 */

const WALL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

/**
 * An instant typed by a person: epoch ms, an ISO time with a zone (`Z` or an offset), or
 * a wall time with no zone, read in `timeZone` ("timer 42 at 10:05:03").
 */
export function parseInstant(text: string, timeZone: string): number {
  const s = text.trim();
  if (/^\d{10,15}$/.test(s)) return Number(s);
  const wall = WALL.exec(s);
  if (wall) {
    const [, y, mo, d, h, mi, sec, ms] = wall;
    const wallMs = Date.UTC(
      Number(y),
      Number(mo) - 1,
      Number(d),
      Number(h),
      Number(mi),
      Number(sec ?? 0),
      Number((ms ?? '0').padEnd(3, '0')),
    );
    return wallToInstant(timeZone, wallMs);
  }
  const parsed = /[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? Date.parse(s) : Number.NaN;
  if (Number.isNaN(parsed)) {
    throw new XtimerError(
      ErrorCode.VALIDATION_FAILED,
      `"${s.slice(0, 40)}" is not a time: use YYYY-MM-DD HH:mm:ss (in the timer's zone), an ISO time with offset, or epoch ms`,
    );
  }
  return parsed;
}

/** `2026-11-22 18:15:03` in `timeZone` (milliseconds only when there are some): what parseInstant reads back to the same instant. */
export function wallText(ms: number, timeZone: string): string {
  const iso = formatInZone(ms, timeZone);
  const [date, rest] = iso.split('T') as [string, string];
  return `${date} ${rest.slice(0, 12).replace(/\.000$/, '')}`;
}
