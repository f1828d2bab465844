import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { RedisSentinelFixture } from '../../../helpers/redis-sentinel.js';
import { eventually } from '../../../helpers/stores.js';

/**
 * The connection xtimer makes through Redis Sentinel, against a throwaway master, replica
 * and three Sentinels: through a manual failover, where the old master stays up and is
 * demoted to a replica, writes go on without an error and land on the new master, and a
 * blocking pop (as BullMQ's workers wait for jobs) is answered by it. (Sentinel itself
 * closes the demoted master's clients; the +switch-master and READONLY reconnects cover a
 * connection that kill does not reach.)
 */
let sentinel: RedisSentinelFixture;

beforeAll(async () => {
  sentinel = await new RedisSentinelFixture('xt-client').start();
}, 60_000);

afterAll(async () => {
  await sentinel?.stop();
});

describe('a Sentinel connection through a failover that demotes a live master', () => {
  it('keeps writing, and a blocking pop waiting on the old master is answered by the new one', {
    timeout: 60_000,
  }, async () => {
    const writer = createRedis(sentinel.url) as Redis;
    const blocking = writer.duplicate();
    for (const c of [writer, blocking]) c.on('error', () => undefined);
    try {
      await writer.del('xt-sentinel:count', 'xt-sentinel:jobs');
      const popped = blocking.bzpopmin('xt-sentinel:jobs', 0);
      // Awaited below; a failure before that must not surface as an unhandled rejection.
      popped.catch(() => undefined);
      const before = await sentinel.masterPort();

      let sent = 0;
      let failed = 0;
      let stop = false;
      const writing = (async () => {
        while (!stop) {
          await writer.incr('xt-sentinel:count').then(
            () => sent++,
            () => failed++,
          );
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      await eventually(() => sent >= 20, 'writes before the failover');
      await sentinel.failOver();
      const after = await sentinel.failedOver(before);
      // The old master may have taken writes until it was demoted, lost with its data then
      // (Sentinel's replication is asynchronous); what counts is that none failed.
      await eventually(
        async () => (await writer.info('server')).includes(`tcp_port:${after}`),
        'the new master',
        // The client finds the new master when the demoted one drops it: on a loaded box
        // (the whole suite beside it) that has taken over 10 s.
        30_000,
      );
      const landed = Number(await writer.get('xt-sentinel:count'));
      const sentBefore = sent;
      await eventually(() => sent >= sentBefore + 50, 'writes after the failover', 20_000);
      stop = true;
      await writing;

      expect(failed).toBe(0);
      expect(Number(await writer.get('xt-sentinel:count'))).toBe(landed + (sent - sentBefore));
      expect(await writer.info('server')).toContain(`tcp_port:${after}`);

      await writer.zadd('xt-sentinel:jobs', 1, 'job-1');
      const answer = await Promise.race([
        popped,
        new Promise((resolve) => setTimeout(() => resolve('still blocked after 10 s'), 10_000)),
      ]);
      expect(answer).toEqual(['xt-sentinel:jobs', 'job-1', '1']);
    } finally {
      writer.disconnect();
      blocking.disconnect();
    }
  });
});
