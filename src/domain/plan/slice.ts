import { utcDay } from '../../lib/utc-text.js';

/**
 * Time-and-bucket slicing: a run lives in the slice of its UTC minute and of bucket
 * `timerId % count`, where a minute's bucket count grows with the timers that have runs
 * in it: `BUCKETS + floor(timers / 16)`, capped at `MAX_BUCKETS`.
 */
export const MINUTE = 60_000;
/**
 * Timers per extra bucket. A run's bucket is fixed when it is placed, and a minute filled
 * by many small placements (creates, a top-up pass) spreads its early runs over the few
 * buckets it had then: bucket b ends with ~k·ln(count/b) of them, k this constant. At 64
 * a million timers' minute left a third of its runs in slices past Redis's compact ZSET
 * encoding (`zset-max-listpack-entries`, 128: ~35 bytes a run inside it, ~130 past it);
 * at 16 the lowest bucket stays under it.
 */
export const TIMERS_PER_EXTRA_BUCKET = 16;

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
  return utcDay(ms);
}

export function bucketOf(timerId: number, bucketCount: number): number {
  return timerId % bucketCount;
}

/**
 * A minute's bucket count for the timers with runs in it. Counted by timers, not runs: a
 * dense timer's 60 runs a minute share its bucket, and counted by runs, 5,000 every-second
 * timers took every bucket there is, each walked and queued every second for ~5 runs.
 */
export function bucketCountFor(timersInMinute: number, base: number, max: number): number {
  return Math.min(max, base + Math.floor(timersInMinute / TIMERS_PER_EXTRA_BUCKET));
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
