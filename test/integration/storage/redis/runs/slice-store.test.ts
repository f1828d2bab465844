import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE, minuteKey } from '../../../../../src/domain/plan/slice.js';
import { createKeys } from '../../../../../src/storage/redis/keys.js';
import { SliceStore } from '../../../../../src/storage/redis/runs/slice-store.js';
import { createTestStores, type TestStores } from '../../../../helpers/stores.js';

/**
 * Slices over real Redis: a run is placed in bucket `timerId % count` of its minute, and
 * removed from wherever it was placed, also after the minute's bucket count grew.
 */
let stores: TestStores;
let slices: SliceStore;
const M = Date.parse('2030-09-01T10:00:00Z');

beforeAll(async () => {
  stores = await createTestStores('slicestore');
  slices = new SliceStore(stores.redis, createKeys(stores.config.prefix), { buckets: 10, maxBuckets: 200 });
});
afterAll(async () => {
  await stores.cleanup();
});

async function members(minute: number): Promise<string[]> {
  const keys = createKeys(stores.config.prefix);
  const found: string[] = [];
  for (let b = 0; b < 200; b++)
    found.push(...(await stores.redis.zrange(keys.slice(minuteKey(minute), b), 0, -1)));
  return found.sort();
}

describe('removing runs from their slices', () => {
  it('finds a run placed before its minute grew more buckets, and only looks where runs can be', async () => {
    // Timer 13 is in bucket 3 of 10; the minute then grows to 20 buckets (13 % 20 = 13).
    await slices.addRuns([{ timerId: 13, runAt: M + 1000, version: 1 }]);
    await slices.addRuns([{ timerId: 13, runAt: M + 2000, version: 1 }], new Map([[M, 10 * 16]]));
    expect(await slices.bucketCounts([M])).toEqual([20]);
    expect(await members(M)).toEqual(['d.1jk.1', 'd.rs.1']);
    await slices.removeRuns([
      { timerId: 13, runAt: M + 1000, version: 1 },
      { timerId: 13, runAt: M + 2000, version: 1 },
    ]);
    expect(await members(M)).toEqual([]);
  });
});

describe('the form of a run in its slice', () => {
  const minute = Date.parse('2030-09-01T11:00:00Z');
  const key = (bucket: number) => createKeys(stores.config.prefix).slice(minuteKey(minute), bucket);

  it('reads and removes runs a previous release wrote in the long form, beside compact ones', async () => {
    // Timer 13 in bucket 3 of 10: one run placed by this release, one by the previous.
    await slices.addRuns([{ timerId: 13, runAt: minute + 2000, version: 1 }]);
    await stores.redis.zadd(key(3), minute + 1000, `13_${minute + 1000}_1`);
    expect(await slices.read(minuteKey(minute), 3, minute, minute + MINUTE)).toEqual([
      { timerId: 13, runAt: minute + 1000, version: 1 },
      { timerId: 13, runAt: minute + 2000, version: 1 },
    ]);
    // Half-open windows, in either form.
    expect(await slices.read(minuteKey(minute), 3, minute + 1001, minute + 2000)).toEqual([]);
    expect(await slices.read(minuteKey(minute), 3, minute + 2000, minute + 2001)).toEqual([
      { timerId: 13, runAt: minute + 2000, version: 1 },
    ]);
    await slices.removeRuns([
      { timerId: 13, runAt: minute + 1000, version: 1 },
      { timerId: 13, runAt: minute + 2000, version: 1 },
    ]);
    expect(await stores.redis.zcard(key(3))).toBe(0);
  });

  it('writes the long form while rolling from a release that reads only that', async () => {
    const long = new SliceStore(
      stores.redis,
      createKeys(stores.config.prefix),
      { buckets: 10, maxBuckets: 200 },
      { isLong: async () => true },
    );
    await long.addRuns([{ timerId: 24, runAt: minute + 5000, version: 2 }]);
    expect(await stores.redis.zrange(key(4), 0, -1, 'WITHSCORES')).toEqual([
      `24_${minute + 5000}_2`,
      String(minute + 5000),
    ]);
  });
});

describe('sizing a minute', () => {
  it('grows its bucket count with all the timers placed in it, however small each placement', async () => {
    const minute = Date.parse('2030-09-02T10:00:00Z');
    // 10 placements of 16 timers (a batch of creates each): 160 timers, 10 + 160/16 buckets.
    for (let p = 0; p < 10; p++)
      await slices.addRuns(
        Array.from({ length: 16 }, (_, i) => ({ timerId: p * 16 + i, runAt: minute + 1000, version: 1 })),
      );
    expect(await slices.bucketCounts([minute])).toEqual([20]);
    // The migrator's total, where it is more, sizes it as before.
    await slices.addRuns([{ timerId: 9999, runAt: minute + 2000, version: 1 }], new Map([[minute, 64 * 16]]));
    expect(await slices.bucketCounts([minute])).toEqual([74]);
  });

  it('counts a timer once however many runs it has in the minute', async () => {
    const minute = Date.parse('2030-09-02T11:00:00Z');
    // 32 every-second timers: 1,920 runs, but 32 timers: 10 + 32/16 buckets, not 10 + 1,920/16.
    const runs = Array.from({ length: 32 * 60 }, (_, i) => ({
      timerId: i % 32,
      runAt: minute + Math.floor(i / 32) * 1000,
      version: 1,
    }));
    await slices.addRuns(runs);
    expect(await slices.bucketCounts([minute])).toEqual([12]);
  });
});

describe('how long a minute is kept', () => {
  it('keeps its slices and bucket counts 10 minutes past the minute, not a day of walked runs', async () => {
    const now = Date.now();
    const minute = Math.floor(now / MINUTE) * MINUTE + 2 * MINUTE;
    await slices.addRuns([{ timerId: 7, runAt: minute + 5000, version: 1 }]);
    const keys = createKeys(stores.config.prefix);
    const m = minuteKey(minute);
    const expiries = await Promise.all(
      [keys.slice(m, 7), keys.bucketCount(m), keys.bucketCountsUsed(m)].map((k) =>
        stores.redis.pexpiretime(k),
      ),
    );
    for (const at of expiries) expect(at).toBe(minute + MINUTE + 10 * MINUTE);
  });
});
