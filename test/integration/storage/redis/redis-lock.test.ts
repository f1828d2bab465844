import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { RedisLock } from '../../../../src/storage/redis/redis-lock.js';
import { withScripts } from '../../../../src/storage/redis/scripts.js';
import { deleteKeys, REDIS_URL, uniqueName } from '../../../helpers/stores.js';

/** The cluster-wide lock against real Redis: only its holder extends or keeps it. */
const redis = withScripts(createRedis(REDIS_URL));
const name = uniqueName('redislock');
const lock = new RedisLock(redis);

afterAll(async () => {
  await deleteKeys(redis, [`${name}:*`]);
  redis.disconnect();
});

describe('keeping a lock', () => {
  it('extends it for its holder', async () => {
    const key = `${name}:held`;
    const token = (await lock.acquire(key, 1000))!;
    expect(await lock.keep(key, token, 60_000)).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(55_000);
  });

  it('takes it back for its holder when it lapsed and no one else took it', async () => {
    const key = `${name}:lapsed`;
    const token = (await lock.acquire(key, 1000))!;
    await redis.del(key);
    expect(await lock.extend(key, token, 60_000)).toBe(false);
    expect(await lock.keep(key, token, 60_000)).toBe(true);
    expect(await redis.get(key)).toBe(token);
  });

  it('leaves it to another holder who took it meanwhile', async () => {
    const key = `${name}:taken`;
    const mine = (await lock.acquire(key, 1000))!;
    await redis.del(key);
    const theirs = (await lock.acquire(key, 60_000))!;
    expect(await lock.keep(key, mine, 60_000)).toBe(false);
    expect(await redis.get(key)).toBe(theirs);
  });
});

describe('holding several locks at once', () => {
  it('holds every key while the work runs, under one token, and frees them all after', async () => {
    const keys = [`${name}:a1`, `${name}:a2`, `${name}:a3`];
    const held = await lock.withLocks(keys, 60_000, 1000, () => redis.mget(...keys));
    expect(held).not.toBeNull();
    const tokens = held!.value;
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toMatch(/^[^:]+:\d+:[0-9a-f]{12}$/);
    expect(await redis.exists(...keys)).toBe(0);
  });

  it('frees them all when the work throws', async () => {
    const keys = [`${name}:t1`, `${name}:t2`];
    await expect(
      lock.withLocks(keys, 60_000, 1000, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await redis.exists(...keys)).toBe(0);
  });

  it('gives back the keys it took while one is held elsewhere, and does not run the work', async () => {
    const [free, busy] = [`${name}:free`, `${name}:busy`];
    await redis.set(busy, 'someone-else', 'PX', 60_000);
    let ran = false;
    const result = await lock.withLocks([free, busy], 60_000, 150, async () => {
      ran = true;
    });
    expect(result).toBeNull();
    expect(ran).toBe(false);
    expect(await redis.exists(free)).toBe(0);
    expect(await redis.get(busy)).toBe('someone-else');
  });

  it('takes them all once the other holder’s lock lapses', async () => {
    const [k1, k2] = [`${name}:w1`, `${name}:w2`];
    await redis.set(k2, 'someone-else', 'PX', 100);
    const held = await lock.withLocks([k1, k2], 60_000, 10_000, () => redis.mget(k1, k2));
    expect(held!.value[0]).not.toBeNull();
    expect(held!.value[1]).toBe(held!.value[0]);
  });
});
