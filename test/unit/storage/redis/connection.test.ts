import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedis as createClient, sentinelTarget } from '../../../../src/storage/redis/connection.js';

/** REDIS_URL `redis+sentinel://[user:password@]host:port,…/master-name`: what it names, and what it refuses. */

describe('sentinelTarget', () => {
  it('reads the Sentinels, the master name and no credentials', () => {
    expect(sentinelTarget('redis+sentinel://10.0.0.1:26379/mymaster')).toEqual({
      sentinels: [{ host: '10.0.0.1', port: 26379 }],
      name: 'mymaster',
      username: undefined,
      password: undefined,
      tls: false,
    });
  });

  it('reads several Sentinels in order, IPv6 ones in brackets', () => {
    expect(
      sentinelTarget('redis+sentinel://s1.internal:26379, [::1]:26380,[fd00::2]:26381/main-cache')?.sentinels,
    ).toEqual([
      { host: 's1.internal', port: 26379 },
      { host: '::1', port: 26380 },
      { host: 'fd00::2', port: 26381 },
    ]);
  });

  it('decodes an escaped user, password and master name, and takes rediss for TLS', () => {
    expect(
      sentinelTarget('rediss+sentinel://app%2Bro:p%40ss%3Aw%2Frd@h1:26379,h2:26379/my%20master'),
    ).toEqual({
      sentinels: [
        { host: 'h1', port: 26379 },
        { host: 'h2', port: 26379 },
      ],
      name: 'my master',
      username: 'app+ro',
      password: 'p@ss:w/rd',
      tls: true,
    });
    expect(sentinelTarget('redis+sentinel://:pw@h1:26379/m')).toMatchObject({
      username: undefined,
      password: 'pw',
    });
  });

  it("reads the Sentinels' own password and user from the query, escaped as the master's are", () => {
    expect(
      sentinelTarget('redis+sentinel://:m%40ster@h1:26379/m?sentinelPassword=s%2Bnt%26l%40pw'),
    ).toMatchObject({ password: 'm@ster', sentinelPassword: 's+nt&l@pw', sentinelUsername: undefined });
    expect(
      sentinelTarget('redis+sentinel://h1:26379/m?sentinelUsername=watcher&sentinelPassword=pw'),
    ).toMatchObject({ password: undefined, sentinelUsername: 'watcher', sentinelPassword: 'pw' });
    // A + is a +, not the space URLSearchParams would make of it.
    expect(sentinelTarget('redis+sentinel://h1:26379/m?sentinelPassword=a+b')?.sentinelPassword).toBe('a+b');
  });

  it('leaves every other URL to the others', () => {
    expect(sentinelTarget('redis://127.0.0.1:6379')).toBeNull();
    expect(sentinelTarget('redis+cluster://127.0.0.1:7000,127.0.0.1:7001')).toBeNull();
  });

  it.each([
    ['redis+sentinel://h1:26379,h2:26379', /names no master/],
    ['redis+sentinel://h1:26379/', /names no master/],
    ['redis+sentinel://h1:26379,h2/m', /"h2" is not a host:port/],
    ['redis+sentinel://h1:0/m', /"h1:0" is not a host:port/],
    ['redis+sentinel://h1:65536/m', /"h1:65536" is not a host:port/],
    ['redis+sentinel://h1:port/m', /is not a host:port/],
    ['redis+sentinel://::1:26379/m', /is not a host:port/],
    ['redis+sentinel://u:p%zz@h1:26379/m', /% in the URL is not an escape/],
    ['redis+sentinel://h1:26379/m/extra', /redis\+sentinel:\/\/\[user:password@\]host:port/],
    [
      'redis+sentinel://h1:26379/m?password=x',
      /may set only sentinelUsername and sentinelPassword, not "password"/,
    ],
    ['redis+sentinel://h1:26379/m?sentinelPassword=', /sentinelPassword is empty/],
    ['redis+sentinel://h1:26379/m?sentinelPassword=a&sentinelPassword=b', /sentinelPassword is set twice/],
    ['redis+sentinel://h1:26379/m?sentinelUsername=w', /sentinelUsername needs sentinelPassword/],
    ['redis+sentinel://h1:26379/m?sentinelPassword=%zz', /% in the URL is not an escape/],
  ])('refuses %s', (url, why) => {
    expect(() => sentinelTarget(url)).toThrow(why);
  });
});

/** A Sentinel URL always makes one Redis client, never a Cluster. */
const createRedis = (url: string, options: { lazyConnect: true }) => createClient(url, options) as Redis;

describe('createRedis on a Sentinel URL', () => {
  it('connects through the Sentinels to the master they name, with its credentials', () => {
    const redis = createRedis('rediss+sentinel://app:pw@h1:26379,h2:26380/mymaster', { lazyConnect: true });
    try {
      expect(redis.isCluster).toBe(false);
      expect(redis.options).toMatchObject({
        sentinels: [
          { host: 'h1', port: 26379 },
          { host: 'h2', port: 26380 },
        ],
        name: 'mymaster',
        role: 'master',
        username: 'app',
        password: 'pw',
        enableTLSForSentinelMode: true,
        failoverDetector: false,
        maxRetriesPerRequest: null,
      });
      // BullMQ's blocking connections are duplicates: they find the master the same way.
      const copy = redis.duplicate();
      expect(copy.options).toMatchObject({ sentinels: redis.options.sentinels, name: 'mymaster' });
      copy.disconnect();
    } finally {
      redis.disconnect();
    }
  });

  it("asks the Sentinels with their own credentials, and BullMQ's duplicates do too", () => {
    const redis = createRedis('redis+sentinel://:pw@h1:26379/m?sentinelUsername=w&sentinelPassword=spw', {
      lazyConnect: true,
    });
    try {
      expect(redis.options).toMatchObject({ password: 'pw', sentinelUsername: 'w', sentinelPassword: 'spw' });
      const copy = redis.duplicate();
      expect(copy.options).toMatchObject({ sentinelUsername: 'w', sentinelPassword: 'spw' });
      copy.disconnect();
    } finally {
      redis.disconnect();
    }
    const plain = createRedis('redis+sentinel://:pw@h1:26379/m', { lazyConnect: true });
    expect(plain.options.sentinelPassword).toBeUndefined();
    plain.disconnect();
  });

  it('reconnects on READONLY (a demoted master) and resends, and on nothing else', () => {
    const redis = createRedis('redis+sentinel://h1:26379/m', { lazyConnect: true });
    try {
      const reconnect = redis.options.reconnectOnError!;
      expect(reconnect(new Error("READONLY You can't write against a read only replica."))).toBe(2);
      expect(reconnect(new Error('ERR wrong number of arguments'))).toBe(false);
    } finally {
      redis.disconnect();
    }
  });
});
