/**
 * Time-and-bucket slicing: a run lives in the slice of its UTC minute and of bucket
 * `timerId % count`, where a minute's bucket count grows with the number of runs in it:
 * `BUCKETS + floor(runs / 64)`, capped at `MAX_BUCKETS`.
 */
export const MINUTE = 60_000;
/**
 * Runs per extra bucket. The original design's 200 made slices of ~150-200 runs, past
 * Redis's compact ZSET encoding (`zset-max-listpack-entries`, 128): each run then cost
 * ~140 bytes of skiplist and hash table instead of ~35. At 64, with room for timers
 * hashing unevenly, a minute's slices stay compact up to ~MAX_BUCKETS × 128 runs (25,600
 * a minute at 200 buckets).
 */
export const RUNS_PER_EXTRA_BUCKET = 64;

export function minuteStart(ms: number): number {
  return Math.floor(ms / MINUTE) * MINUTE;
}

/** `YYYY-MM-DDTHH:mm` of the UTC minute holding `ms`. */
export function minuteKey(ms: number): string {
  return new Date(minuteStart(ms)).toISOString().slice(0, 16);
}

export function parseMinuteKey(key: string): number {
  return Date.parse(`${key}:00.000Z`);
}

/** `YYYY-MM-DD` (UTC), the bloom filter's day. */
export function dayKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function bucketOf(timerId: number, bucketCount: number): number {
  return timerId % bucketCount;
}

export function bucketCountFor(runsInMinute: number, base: number, max: number): number {
  return Math.min(max, base + Math.floor(runsInMinute / RUNS_PER_EXTRA_BUCKET));
}

export function sliceId(minute: string, bucket: number): string {
  return `${minute}_${bucket}`;
}

/** The minutes a scheduler tick looks at: previous (takeover), current, and the next one within the prefetch. */
export function minutesToScan(now: number, prefetchMs: number): number[] {
  const current = minuteStart(now);
  const minutes = [current - MINUTE, current];
  if (current + MINUTE - now <= prefetchMs) minutes.push(current + MINUTE);
  return minutes;
}
