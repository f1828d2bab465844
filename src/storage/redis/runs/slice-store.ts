import {
  bucketCountFor,
  bucketOf,
  MINUTE,
  minuteKey,
  minuteStart,
  parseMinuteKey,
} from '../../../domain/plan/slice.js';
import { parseSliceEntry, type SliceRun, sliceEntry } from '../../../domain/plan/task-key.js';
import { groupBy } from '../../../lib/group-by.js';
import type { Keys } from '../keys.js';
import type { ScriptedPipeline, ScriptedRedis } from '../scripts.js';
import { SlotBatch } from '../slot-batch.js';
import type { SliceForm } from './slice-form.js';

/**
 * How long a minute's slices (and its bucket counts) outlive it. Nothing reads a slice
 * after its minute has been walked: a scheduler scans a minute until the next one ends,
 * and the compensator settles from MySQL the pending runs of older minutes. 10 minutes
 * leave a wide margin over that; the 24 h they used to live kept a day of walked runs,
 * ~90 members per timer of the usual mix, several times what the runs still ahead take.
 */
export const SLICE_TTL_MS = 10 * MINUTE;
const ZADD_CHUNK = 1000;

export interface BucketSettings {
  buckets: number;
  maxBuckets: number;
}

/**
 * The near-term working set: per (minute, bucket) ZSETs of runs (task-key.ts
 * sliceEntry), and each minute's bucket count.
 */
export class SliceStore {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly settings: BucketSettings,
    /** Which form runs go in (slice-form.ts); compact without one. */
    private readonly form?: Pick<SliceForm, 'isLong'>,
  ) {}

  /**
   * Places runs into their slices. A minute's bucket count follows the timers placed in
   * it so far, or `minuteTotals` (timers with runs in each minute, when the caller knows
   * them, as the migrator does) where that is more. Sized by each placement alone, a
   * minute filled by many small ones (creates, a batch of a thousand timers ~17 runs a
   * minute) kept the base count, and its first buckets outgrew Redis's compact encoding.
   */
  async addRuns(runs: readonly SliceRun[], minuteTotals?: ReadonlyMap<number, number>): Promise<void> {
    if (runs.length === 0) return;
    const byMinute = groupBy(runs, (r) => minuteStart(r.runAt));
    const minutes = [...byMinute.keys()];
    const placed = await this.countPlaced(
      minutes.map((m) => [m, new Set(byMinute.get(m)!.map((r) => r.timerId)).size] as const),
    );
    const counts = await this.raiseBucketCounts(
      minutes.map((m, i) => [m, Math.max(placed[i]!, minuteTotals?.get(m) ?? 0)] as const),
    );
    const long = (await this.form?.isLong()) ?? false;
    const batch = new SlotBatch(this.redis);
    for (let i = 0; i < minutes.length; i++) {
      const m = minutes[i]!;
      const count = counts[i]!;
      const minute = minuteKey(m);
      // Which count these runs are placed with: a removal looks in their bucket under each.
      const used = this.keys.bucketCountsUsed(minute);
      batch.on(used).sadd(used, count);
      batch.on(used).pexpireat(used, m + MINUTE + SLICE_TTL_MS);
      const perBucket = groupBy(byMinute.get(m)!, (r) => bucketOf(r.timerId, count));
      for (const [bucket, bucketRuns] of perBucket) {
        const key = this.keys.slice(minute, bucket);
        const args = bucketRuns.flatMap((r) => {
          const e = sliceEntry(r, m, long);
          return [e.score, e.member];
        });
        for (let j = 0; j < args.length; j += ZADD_CHUNK * 2)
          batch.on(key).zadd(key, ...args.slice(j, j + ZADD_CHUNK * 2));
        batch.on(key).pexpireat(key, m + MINUTE + SLICE_TTL_MS);
      }
      if (batch.size >= 200) await batch.execOrThrow();
    }
    await batch.execOrThrow();
  }

  /**
   * Removes runs (as planned: same version) from their slices: a run sits in bucket
   * `timerId % count` for one of the counts its minute's runs were placed with (a
   * minute's count only grows), so each is looked for under each of those. A minute
   * placed before the counts were recorded is looked for in every bucket.
   */
  async removeRuns(runs: readonly SliceRun[]): Promise<void> {
    if (runs.length === 0) return;
    const byMinute = groupBy(runs, (r) => minuteStart(r.runAt));
    const minutes = [...byMinute.keys()];
    const used = await this.bucketCountsUsed(minutes);
    const counts = await this.bucketCounts(minutes);
    const batch = new SlotBatch(this.redis);
    minutes.forEach((m, i) => {
      const minute = minuteKey(m);
      const targets = new Map<number, string[]>();
      const place = (bucket: number, ...members: string[]) => {
        const list = targets.get(bucket) ?? [];
        list.push(...members);
        targets.set(bucket, list);
      };
      const placedWith = used[i]!;
      for (const r of byMinute.get(m)!) {
        // Either form: a process of the previous release may have placed it.
        const members = [sliceEntry(r, m).member, sliceEntry(r, m, true).member];
        if (placedWith.length > 0) {
          for (const b of new Set(placedWith.map((c) => bucketOf(r.timerId, c)))) place(b, ...members);
        } else {
          for (let b = 0; b < (counts[i] ?? this.settings.buckets); b++) place(b, ...members);
        }
      }
      for (const [bucket, members] of targets) {
        const key = this.keys.slice(minute, bucket);
        batch.on(key).zrem(key, ...members);
      }
    });
    await batch.execOrThrow();
  }

  /** The bucket counts each minute's runs were placed with (empty where none were recorded). */
  private async bucketCountsUsed(minutes: readonly number[]): Promise<number[][]> {
    const batch = new SlotBatch(this.redis);
    for (const m of minutes) {
      const key = this.keys.bucketCountsUsed(minuteKey(m));
      batch.on(key).smembers(key);
    }
    const sets = (await batch.execOrThrow()) as string[][];
    return sets.map((set) => set.map(Number));
  }

  /** The bucket count of each minute, or null where none was ever set (no runs placed, or Redis lost it). */
  async bucketCounts(minutes: readonly number[]): Promise<(number | null)[]> {
    if (minutes.length === 0) return [];
    const batch = new SlotBatch(this.redis);
    for (const m of minutes) {
      const key = this.keys.bucketCount(minuteKey(m));
      batch.on(key).get(key);
    }
    const values = (await batch.execOrThrow()) as Array<string | null>;
    return values.map((v) => (v === null ? null : Number(v)));
  }

  /** Runs of one slice due in [fromMs, toMs), in either form (task-key.ts sliceEntry). */
  async read(minute: string, bucket: number, fromMs: number, toMs: number): Promise<SliceRun[]> {
    const key = this.keys.slice(minute, bucket);
    const start = parseMinuteKey(minute);
    const from = Math.max(0, fromMs - start);
    const to = Math.min(MINUTE, toMs - start);
    const [compact, long] = await Promise.all([
      from < to ? this.redis.zrangebyscore(key, from, `(${to}`) : [],
      this.redis.zrangebyscore(key, fromMs, `(${toMs}`),
    ]);
    const runs: SliceRun[] = [];
    for (const member of [...compact, ...long]) {
      const run = parseSliceEntry(member, start);
      if (run) runs.push(run);
    }
    if (compact.length > 0 && long.length > 0) runs.sort((a, b) => a.runAt - b.runAt);
    return runs;
  }

  /**
   * Adds each minute's timers to its counter: the timers placed in it so far (one placed
   * again, after a change, counts again: a count only errs high).
   */
  private async countPlaced(minutes: ReadonlyArray<readonly [number, number]>): Promise<number[]> {
    const batch = new SlotBatch(this.redis);
    for (const [m, timers] of minutes) {
      const key = this.keys.bucketTimers(minuteKey(m));
      batch.on(key).incrby(key, timers);
      batch.on(key).pexpireat(key, m + MINUTE + SLICE_TTL_MS);
    }
    const replies = await batch.execOrThrow();
    return minutes.map((_, i) => Number(replies[2 * i]));
  }

  private async raiseBucketCounts(minutes: ReadonlyArray<readonly [number, number]>): Promise<number[]> {
    const batch = new SlotBatch(this.redis);
    for (const [m, timers] of minutes) {
      const wanted = bucketCountFor(timers, this.settings.buckets, this.settings.maxBuckets);
      const key = this.keys.bucketCount(minuteKey(m));
      (batch.on(key) as ScriptedPipeline).raiseBucketCount(key, wanted, m + MINUTE + SLICE_TTL_MS);
    }
    const results = await batch.execOrThrow();
    return results.map((r) => Number(r));
  }
}
