import { offsetAt } from './time-zone.js';

/**
 * Calendars: named lists of dates an app's timers skip. A timer names them in
 * `skipCalendars`; no run is planned on a listed date, read in the timer's zone.
 */

export const CALENDAR_LIMITS = {
  maxDates: 1000,
  namePattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
  /** Calendars one timer may name. */
  perTimer: 20,
} as const;

export interface Calendar {
  app: string;
  name: string;
  /** `YYYY-MM-DD`, sorted, unique. */
  dates: string[];
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The dates a timer skips, each with the calendars that list it (what `skippedBy` shows). */
export type SkipDates = Readonly<Record<string, readonly string[]>>;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Is `text` a real calendar date written `YYYY-MM-DD`? */
export function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The local date (`YYYY-MM-DD`) of an instant in a zone. */
export function localDate(ms: number, timeZone: string): string {
  return new Date(ms + offsetAt(timeZone, ms)).toISOString().slice(0, 10);
}

/** The dates the named calendars list, each with the names of those listing it. */
export function skipDatesOf(calendars: readonly Pick<Calendar, 'name' | 'dates'>[]): SkipDates {
  const out: Record<string, string[]> = {};
  for (const c of calendars) {
    for (const d of c.dates) {
      const names = out[d] ?? [];
      names.push(c.name);
      out[d] = names;
    }
  }
  return out;
}
