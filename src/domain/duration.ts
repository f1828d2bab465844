/**
 * Durations as a timer's `every` and `offset` are written: a count and a unit (`90m`,
 * `1h30m`, units s, m, h, d) or an ISO-8601 duration without years or months (`PT90M`,
 * `P1DT12H`, `PT1.5S`), whose length varies with the calendar.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const SHORT = /^(?:\d{1,9}[dhms])+$/;
const SHORT_PART = /(\d{1,9})([dhms])/g;
const ISO =
  /^P(?:(\d{1,9})W)?(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})(?:\.(\d{1,3}))?S)?)?$/;

export class DurationSyntaxError extends Error {}

/** The duration in milliseconds, or a DurationSyntaxError saying what is wrong. */
export function parseDuration(text: string): number {
  const v = text.trim();
  if (SHORT.test(v)) {
    let ms = 0;
    for (const [, n, unit] of v.matchAll(SHORT_PART)) ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
    return ms;
  }
  const iso = ISO.exec(v.toUpperCase());
  if (iso && v.length > 1 && !v.toUpperCase().endsWith('T')) {
    const [, w, d, h, m, s, frac] = iso;
    const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
    return (
      n(w) * 7 * UNIT_MS.d +
      n(d) * UNIT_MS.d +
      n(h) * UNIT_MS.h +
      n(m) * UNIT_MS.m +
      n(s) * UNIT_MS.s +
      (frac === undefined ? 0 : Number(frac.padEnd(3, '0')))
    );
  }
  if (/^P.*[YM].*$/i.test(v) && !/T.*M/i.test(v)) {
    throw new DurationSyntaxError(
      `${JSON.stringify(v.slice(0, 40))}: years and months vary in length; give days, hours, minutes or seconds`,
    );
  }
  throw new DurationSyntaxError(
    `${JSON.stringify(v.slice(0, 40))} is not a duration: write a count and a unit (s, m, h, d), e.g. 90m, or ISO-8601, e.g. PT90M`,
  );
}

/**
 * A duration as the API shows it: one count of the largest unit that divides it
 * (`90m`, `1d`, `45s`), or ISO-8601 where it has milliseconds (`PT1.5S`). Parsing it
 * gives back the same milliseconds.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit];
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  const s = Math.floor(ms / 1000);
  return `PT${s}.${String(ms % 1000).padStart(3, '0')}S`;
}
