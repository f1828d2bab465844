import { groupBy } from '../../domain/group-by.js';
import { dayKey } from '../../domain/slice.js';
import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';

/** Bits before the filter proper: the filter's creation time (u48). */
const HEADER_BITS = 64;

export interface BloomSettings {
  /** Size of each day's filter in bits (16 MiB by default: ~5% false positives at 20M runs a day). */
  bits: number;
  hashes: number;
  ttlMs: number;
}

export const DEFAULT_BLOOM: BloomSettings = { bits: 2 ** 27, hashes: 3, ttlMs: 48 * 3600_000 };

export type BloomAnswer = 'no' | 'maybe' | 'unknown';

export interface BloomItem {
  key: string;
  runAt: number;
}

function fnv1a(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Per-day bloom filter of executed task keys (SPEC §4, seed 000): a fast "certainly
 * not executed" before the executor claims a run. "Maybe" means: ask MySQL.
 */
export class BloomFilter {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly settings: BloomSettings = DEFAULT_BLOOM,
  ) {}

  offsets(taskKey: string): number[] {
    // Double hashing (Kirsch–Mitzenmacher): k positions from two hashes.
    const h1 = fnv1a(taskKey, 0x811c9dc5);
    const h2 = fnv1a(taskKey, 0x01234567) | 1;
    const out: number[] = [];
    for (let i = 0; i < this.settings.hashes; i++) {
      out.push(HEADER_BITS + (((h1 + Math.imul(i, h2)) >>> 0) % this.settings.bits));
    }
    return out;
  }

  async add(items: readonly BloomItem[]): Promise<void> {
    const byDay = groupBy(items, (i) => dayKey(i.runAt));
    const pipeline = this.redis.pipeline() as unknown as {
      bloomAdd(key: string, ttl: number, ...offsets: number[]): void;
      exec(): Promise<unknown>;
    };
    for (const [day, dayItems] of byDay) {
      pipeline.bloomAdd(
        this.keys.bloom(day),
        this.settings.ttlMs,
        ...dayItems.flatMap((i) => this.offsets(i.key)),
      );
    }
    await pipeline.exec();
  }

  /**
   * For each item: 'no' if it certainly never executed, 'maybe' if its bits are set,
   * 'unknown' if the filter cannot tell (it is missing, or was created after the run
   * was due — Redis lost it, or the day's first runs are still going out).
   */
  async check(items: readonly BloomItem[]): Promise<BloomAnswer[]> {
    const result = new Array<BloomAnswer>(items.length).fill('unknown');
    const byDay = groupBy(
      items.map((item, index) => ({ item, index })),
      (x) => dayKey(x.item.runAt),
    );
    await Promise.all(
      [...byDay].map(async ([day, entries]) => {
        const args: (string | number)[] = ['GET', 'u48', 0];
        for (const { item } of entries) for (const o of this.offsets(item.key)) args.push('GET', 'u1', o);
        const bits = (await this.redis.call('BITFIELD', this.keys.bloom(day), ...args)) as number[];
        const createdAt = bits[0] ?? 0;
        entries.forEach(({ item, index }, n) => {
          if (createdAt === 0 || item.runAt < createdAt) return;
          const base = 1 + n * this.settings.hashes;
          let all = true;
          for (let h = 0; h < this.settings.hashes; h++) all &&= bits[base + h] === 1;
          result[index] = all ? 'maybe' : 'no';
        });
      }),
    );
    return result;
  }
}
