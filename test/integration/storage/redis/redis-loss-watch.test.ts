import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../../src/storage/redis/connection.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { RedisLossWatch } from '../../../../src/storage/redis/redis-loss-watch.js';
import { createTestStores, eventually, type TestStores } from '../../../helpers/stores.js';

/**
 * The watch over the "slices intact" marker, against a real Redis that can be made to
 * refuse (as a failover's READONLY or LOADING does) for a while.
 */
let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores('losswatch');
});
afterAll(async () => {
  await stores.cleanup();
});

describe('a loss first suspected while Redis refused', () => {
  it('runs the listeners again once Redis answers that the marker is gone, and once only', async () => {
    const keys = createKeys(stores.config.prefix);
    await stores.redis.set(keys.slicesIntact(), '1');
    let refusing = false;
    const redis = {
      exists: (key: string) =>
        refusing ? Promise.reject(new Error('READONLY You cannot write')) : stores.redis.exists(key),
    } as unknown as RedisClient;
    let losses = 0;
    const watch = new RedisLossWatch(redis, keys, 10, 300).onLoss(() => losses++).start();
    try {
      await eventually(() => !watch.suspected, 'no loss suspected with the marker there');
      refusing = true;
      await eventually(() => losses === 1, 'a loss suspected while Redis refuses');
      // Back, and empty: what the listeners could not write then, they write now.
      await stores.redis.del(keys.slicesIntact());
      refusing = false;
      await eventually(() => losses === 2, 'the listeners run again with Redis answering');
      const seen = losses;
      await new Promise((r) => setTimeout(r, 100));
      expect(losses).toBe(seen);
    } finally {
      watch.stop();
    }
  });
});
