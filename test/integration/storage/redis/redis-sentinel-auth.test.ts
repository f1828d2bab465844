import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { RedisSentinelFixture } from '../../../helpers/redis-sentinel.js';
import { eventually } from '../../../helpers/stores.js';

/**
 * Redis Sentinel where the master and its replica require a password and the Sentinels
 * require one of their own, against a throwaway master, replica and three Sentinels: the
 * URL carries the master's before the `@` and the Sentinels' as `?sentinelPassword=`
 * (both with characters that must be escaped), and a connection reaches the master; one
 * without the Sentinels' password says what it lacks.
 */
let sentinel: RedisSentinelFixture;

beforeAll(async () => {
  sentinel = await new RedisSentinelFixture('xt-auth', 1, 3, {
    password: 'm@ster+1',
    sentinelPassword: 's3nt/nel+pw',
  }).start();
}, 60_000);

afterAll(async () => {
  await sentinel?.stop();
});

describe('Sentinels and a master that both require a password', () => {
  it('reaches the master through the Sentinels with the URL carrying both passwords', async () => {
    expect(sentinel.url).toMatch(
      /^redis\+sentinel:\/\/:m%40ster%2B1@.*\/xt-auth\?sentinelPassword=s3nt%2Fnel%2Bpw$/,
    );
    const redis = createRedis(sentinel.url) as Redis;
    redis.on('error', () => undefined);
    try {
      await redis.set('xt-auth:key', 'value');
      expect(await redis.get('xt-auth:key')).toBe('value');
      const info = await redis.info('server');
      expect(info).toContain(`tcp_port:${await sentinel.masterPort()}`);
      expect(await redis.info('replication')).toContain('role:master');
    } finally {
      redis.disconnect();
    }
  });

  it("names the Sentinels' refusal when the URL lacks their password", async () => {
    const errors: string[] = [];
    const redis = createRedis(sentinel.url.replace(/\?.*$/, ''), { lazyConnect: true }) as Redis;
    redis.on('error', (err: Error) => errors.push(err.message));
    try {
      redis.connect().catch(() => undefined);
      await eventually(
        // ioredis's words, as docs/operating.md quotes them for an operator.
        () =>
          errors.some(
            (m) => m.startsWith('All sentinels are unreachable') && m.includes('Last error: NOAUTH'),
          ),
        'an error saying the Sentinels want a password',
        10_000,
        50,
      );
      expect(redis.status).not.toBe('ready');
    } finally {
      redis.disconnect();
    }
  });
});
