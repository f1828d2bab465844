import { ianaZoneNames } from './iana-zone-names.js';
import { formatterFor, type OffsetChange, offsetChangesBetween, zoneOffsetAt } from './zone-transitions.js';

/**
 * Time-zone arithmetic on epoch milliseconds: offsets from the zone's change table
 * (zone-transitions.ts, read from Intl), wall clocks, and wall time back to instants
 * under xtimer's DST rule (docs/schedules.md "Time zones and daylight saving").
 */

const HOUR = 3600_000;
/** IANA offsets stay within ±16 h: instants showing a given wall time lie within this of it. */
export const MAX_OFFSET = 18 * HOUR;

/**
 * True for a zone name of the IANA tz database, canonical or a link (`US/Eastern`),
 * spelled as the database spells it, that the runtime also knows. Intl alone is too
 * lenient: it takes any letter case and ICU's own names (`PST`, `AET`, `SystemV/EST5`).
 * A zone newer than the list is taken when Intl names it canonical.
 */
export function isValidTimeZone(timeZone: string): boolean {
  if (!ianaZoneNames.has(timeZone) && !runtimeCanonicalZones().has(timeZone)) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Zone names that read as a region's time but are a fixed offset all year (the tz
 * database keeps them for old systems): whoever writes EST means New York, and would
 * silently lose daylight saving. Each with the zone meant.
 */
export const FIXED_ABBREVIATIONS: Readonly<Record<string, string>> = {
  EST: 'America/New_York',
  MST: 'America/Denver',
  HST: 'Pacific/Honolulu',
};

let canonical: ReadonlySet<string> | null = null;

function runtimeCanonicalZones(): ReadonlySet<string> {
  canonical ??= new Set(Intl.supportedValuesOf('timeZone'));
  return canonical;
}

/** Local wall-clock fields of an instant. Month is 1-12. */
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
  return zoneOffsetAt(timeZone, utcMs);
}

export function wallTimeAt(timeZone: string, utcMs: number): WallTime {
  const d = new Date(utcMs + offsetAt(timeZone, utcMs));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/**
 * A zone's offsets over a stretch of time: the offset before it and the changes within.
 * Wall times (written as if they were UTC) resolve to instants under the DST rule.
 */
export class OffsetTimeline {
  /** The least and the greatest offset in force: a wall time W shows at instants in [W - maxOffset, W - minOffset]. */
  readonly minOffset: number;
  readonly maxOffset: number;

  private constructor(
    private readonly initial: number,
    private readonly changes: readonly OffsetChange[],
  ) {
    const offsets = [initial, ...changes.map((c) => c.after)];
    this.minOffset = Math.min(...offsets);
    this.maxOffset = Math.max(...offsets);
  }

  /** The zone's offsets over [fromMs, toMs). */
  static of(timeZone: string, fromMs: number, toMs: number): OffsetTimeline {
    return new OffsetTimeline(offsetAt(timeZone, fromMs - 1), offsetChangesBetween(timeZone, fromMs, toMs));
  }

  /** The offset in force at `utcMs`. */
  offsetAt(utcMs: number): number {
    let offset = this.initial;
    for (const c of this.changes) {
      if (c.at > utcMs) break;
      offset = c.after;
    }
    return offset;
  }

  /**
   * The offsets a wall time resolving into [fromMs, toMs) can be read with: those in
   * force then and, with `gaps` (a fixed time, which a jump does not skip), the offset
   * before a jump whose skipped wall times resolve just after it. Expansion builds only
   * the wall times one of these places in the window.
   */
  offsetsInto(fromMs: number, toMs: number, gaps: boolean): number[] {
    const offsets = [this.offsetAt(fromMs)];
    const add = (o: number) => {
      if (!offsets.includes(o)) offsets.push(o);
    };
    for (const c of this.changes) {
      if (c.at >= toMs) break;
      if (c.at > fromMs) add(c.after);
      // A gap's wall times resolve with `before` into [at, at + (after - before)).
      if (gaps && c.after > c.before && c.at + (c.after - c.before) > fromMs) add(c.before);
    }
    return offsets;
  }

  /** Does the offset change in [fromMs, toMs)? */
  changesBetween(fromMs: number, toMs: number): boolean {
    return this.changes.some((c) => c.at >= fromMs && c.at < toMs);
  }

  /**
   * Appends the instants at which the wall clock shows `wallMs`, ascending. With
   * `everyOccurrence` (real time: a frequent schedule) each one, none for a wall time a
   * gap skips. Without (a fixed time) exactly one: the first occurrence, or for a
   * skipped wall time the instant that reads it with the offset in force before the jump.
   */
  resolve(wallMs: number, everyOccurrence: boolean, out: number[]): void {
    let offset = this.initial;
    let from = Number.NEGATIVE_INFINITY;
    let found = false;
    for (let i = 0; i <= this.changes.length; i++) {
      const change = this.changes[i];
      const until = change ? change.at : Number.POSITIVE_INFINITY;
      const t = wallMs - offset;
      if (t >= from && t < until) {
        out.push(t);
        if (!everyOccurrence) return;
        found = true;
      }
      if (change) {
        from = change.at;
        offset = change.after;
      }
    }
    if (found || everyOccurrence) return;
    for (const c of this.changes) {
      if (wallMs >= c.at + c.before && wallMs < c.at + c.after) {
        out.push(wallMs - c.before);
        return;
      }
    }
  }
}

/**
 * The instant at which the wall clock of `timeZone` shows `wallMs` (a wall time
 * written as if it were UTC), read as a fixed time: its first occurrence, or in a gap
 * with the offset before the jump (02:30 on New York's spring-forward day is 03:30 EDT).
 */
export function wallToInstant(timeZone: string, wallMs: number): number {
  const out: number[] = [];
  OffsetTimeline.of(timeZone, wallMs - MAX_OFFSET, wallMs + MAX_OFFSET).resolve(wallMs, false, out);
  return out[0] ?? wallMs - offsetAt(timeZone, wallMs);
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
