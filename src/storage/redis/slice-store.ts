import type { ChainableCommander } from 'ioredis';
import { groupBy } from '../../domain/group-by.js';
import { bucketCountFor, bucketOf, MINUTE, minuteKey, minuteStart } from '../../domain/slice.js';
import { sliceMember } from '../../domain/task-key.js';
import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';
import { SlotBatch } from './slot-batch.js';

/** A pipeline with the raise-bucket-count script on it. */
type ScriptedPipeline = ChainableCommander & {
  raiseBucketCount(key: string, wanted: number, expireAtMs: number): ChainableCommander;
};

/** Slices live 24 h past their minute (SPEC §4). */
export const SLICE_TTL_MS = 24 * 3600_000;
const ZADD_CHUNK = 1000;

/** A run in a slice: which timer, when, and the timer version it was planned for. */
export interface SliceRun {
  timerId: number;
  runAt: number;
  version: number;
}

export interface BucketSettings {
  buckets: number;
  maxBuckets: number;
}

/** A slice member as read back (task-key.ts sliceMember) and its due instant. */
export interface SliceEntry {
  member: string;
  runAt: number;
}

/**
 * The near-term working set: per (minute, bucket) ZSETs of task keys scored by run
 * time, and each minute's bucket count.
 */
export class SliceStore {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly settings: BucketSettings,
  ) {}

  /**
   * Places runs into their slices. `minuteTotals` (runs per minute across all timers,
   * when the caller knows them, as the migrator does) sizes each minute's bucket count.
   */
  async addRuns(runs: readonly SliceRun[], minuteTotals?: ReadonlyMap<number, number>): Promise<void> {
    if (runs.length === 0) return;
    const byMinute = groupBy(runs, (r) => minuteStart(r.runAt));
    const minutes = [...byMinute.keys()];
    const counts = await this.raiseBucketCounts(
      minutes.map((m) => [m, minuteTotals?.get(m) ?? byMinute.get(m)!.length] as const),
    );
    const batch = new SlotBatch(this.redis);
    for (let i = 0; i < minutes.length; i++) {
      const m = minutes[i]!;
      const count = counts[i]!;
      const minute = minuteKey(m);
      const perBucket = groupBy(byMinute.get(m)!, (r) => bucketOf(r.timerId, count));
      for (const [bucket, bucketRuns] of perBucket) {
        const key = this.keys.slice(minute, bucket);
        const args = bucketRuns.flatMap((r) => [r.runAt, sliceMember(r.timerId, r.runAt, r.version)]);
        for (let j = 0; j < args.length; j += ZADD_CHUNK * 2)
          batch.on(key).zadd(key, ...args.slice(j, j + ZADD_CHUNK * 2));
        batch.on(key).pexpireat(key, m + MINUTE + SLICE_TTL_MS);
      }
      if (batch.size >= 200) await batch.execOrThrow();
    }
    await batch.execOrThrow();
  }

  /** Removes runs (as planned: same version) from every bucket their minute has (their placement count is not recorded). */
  async removeRuns(runs: readonly SliceRun[]): Promise<void> {
    if (runs.length === 0) return;
    const byMinute = new Map(
      [...groupBy(runs, (r) => minuteStart(r.runAt))].map(([m, list]) => [
        m,
        list.map((r) => sliceMember(r.timerId, r.runAt, r.version)),
      ]),
    );
    const minutes = [...byMinute.keys()];
    const counts = await this.bucketCounts(minutes);
    const batch = new SlotBatch(this.redis);
    minutes.forEach((m, i) => {
      const count = counts[i] ?? this.settings.buckets;
      for (let b = 0; b < count; b++) {
        const key = this.keys.slice(minuteKey(m), b);
        batch.on(key).zrem(key, ...byMinute.get(m)!);
      }
    });
    await batch.execOrThrow();
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

  /** Runs of one slice due in [fromMs, toMs). */
  async read(minute: string, bucket: number, fromMs: number, toMs: number): Promise<SliceEntry[]> {
    const raw = await this.redis.zrangebyscore(
      this.keys.slice(minute, bucket),
      fromMs,
      `(${toMs}`,
      'WITHSCORES',
    );
    const out: SliceEntry[] = [];
    for (let i = 0; i < raw.length; i += 2) out.push({ member: raw[i]!, runAt: Number(raw[i + 1]) });
    return out;
  }

  private async raiseBucketCounts(minutes: ReadonlyArray<readonly [number, number]>): Promise<number[]> {
    const batch = new SlotBatch(this.redis);
    for (const [m, runs] of minutes) {
      const wanted = bucketCountFor(runs, this.settings.buckets, this.settings.maxBuckets);
      const key = this.keys.bucketCount(minuteKey(m));
      (batch.on(key) as ScriptedPipeline).raiseBucketCount(key, wanted, m + MINUTE + SLICE_TTL_MS);
    }
    const results = await batch.execOrThrow();
    return results.map((r) => Number(r));
  }
}
