import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { RedisLock } from '../../src/storage/redis/redis-lock.js';
import { withScripts } from '../../src/storage/redis/scripts.js';
import { deleteKeys, REDIS_URL, uniqueName } from '../helpers/stores.js';

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
