import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { withScripts } from '../../../../src/storage/redis/scripts.js';
import { RedisClusterFixture } from '../../../helpers/redis-cluster.js';

/**
 * The connection xtimer makes to a Redis Cluster, against throwaway 3-master clusters:
 * the executor asks for auto-pipelining, and on a cluster that must not reach ioredis,
 * whose auto-pipelines group a script call by its first argument rather than its keys;
 * and a connection re-opened while the cluster is down settles, so BullMQ's workers,
 * which re-open their blocking connections that way, fetch again after a failover.
 */
let redisCluster: RedisClusterFixture;

beforeAll(async () => {
  redisCluster = await new RedisClusterFixture(3, 0).start();
}, 60_000);

afterAll(async () => {
  await redisCluster?.stop();
});

describe('a cluster connection asked to auto-pipeline', () => {
  it('answers claim scripts of days on different masters and plain commands sent together', async () => {
    const redis = withScripts(createRedis(redisCluster.url, { enableAutoPipelining: true }));
    try {
      const claims = new RunClaims(redis, createKeys('xt-client:'));
      // One run a day for 30 days: their claim records (tagged by day) spread over the masters.
      const day = 86_400_000;
      const start = Date.parse('2030-01-01T00:00:00Z');
      const runs = Array.from({ length: 30 }, (_, i) => ({
        key: taskKey(i + 1, start + i * day),
        runAt: start + i * day,
      }));
      const results = await Promise.all([
        ...runs.map((run) => claims.claim(run, 'owner', 10_000)),
        ...runs.map((run) => redis.exists(`xt-client:other:${run.key}`)),
      ]);
      expect(results.slice(0, runs.length).map((r) => (r as { outcome: string }).outcome)).toEqual(
        runs.map(() => 'claimed'),
      );
    } finally {
      redis.disconnect();
    }
  });
});

describe('a cluster connection re-opened while the cluster is down', () => {
  let downCluster: RedisClusterFixture;

  beforeAll(async () => {
    downCluster = await new RedisClusterFixture(3, 0).start();
  }, 60_000);

  afterAll(async () => {
    await downCluster?.stop();
  });

  it('settles its connect() instead of leaving it pending for good', { timeout: 60_000 }, async () => {
    const redis = createRedis(downCluster.url);
    redis.on('error', () => undefined);
    try {
      await redis.set('xt-down:probe', '1');
      // A master lost and no replica to promote: CLUSTER INFO says fail until it is back.
      const victim = await downCluster.masterOf('xt-down:other');
      downCluster.kill(victim);
      await downCluster.downWithout(victim);
      // What BullMQ does to a blocking connection its watchdog gave up on.
      const ended = new Promise((resolve) => redis.once('end', resolve));
      redis.disconnect();
      await ended;
      const settled = await Promise.race([
        redis.connect().then(
          () => 'resolved',
          () => 'rejected',
        ),
        new Promise((resolve) => setTimeout(() => resolve('still pending after 10 s'), 10_000)),
      ]);
      expect(settled).not.toBe('still pending after 10 s');
    } finally {
      redis.disconnect();
    }
  });
});
