const DAY_MS = 86_400_000;

let lastDay = Number.NaN;
let lastDayText = '';

/**
 * `YYYY-MM-DD` of the UTC day holding the epoch-ms instant `ms`. The last day's text is
 * kept: the firing path asks it for nearly every run, and nearly always of one day.
 */
export function utcDay(ms: number): string {
  const day = Math.floor(Math.trunc(ms) / DAY_MS);
  if (day !== lastDay) {
    lastDayText = new Date(day * DAY_MS).toISOString().slice(0, 10);
    lastDay = day;
  }
  return lastDayText;
}

/**
 * `YYYY-MM-DD HH:MM:SS.mmm` (UTC), as `toISOString` would write it: the time of day by
 * arithmetic, without a Date, since each outcome written to MySQL takes three of them.
 */
export function utcDateTime(ms: number): string {
  const t = Math.trunc(ms);
  let rest = t - Math.floor(t / DAY_MS) * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  const milli = rest - s * 1000;
  return `${utcDay(t)} ${two(h)}:${two(m)}:${two(s)}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
