import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, createTimers, deliveryReport, settledDeliveryReport, sleep } from '../helpers/cluster.js';
import { RedisClusterFixture } from '../helpers/redis-cluster.js';
import { Sink } from '../helpers/sink.js';
import { dropDatabase, MYSQL_SERVER, TEST_ENV, uniqueName } from '../helpers/stores.js';

/**
 * xtimer on a Redis Cluster: 3 masters, each with a replica, started
 * for this test on free ports and torn down after it. Timers fire on time and once, and
 * keep doing so when the master that holds the execute queue is killed and its replica
 * takes over.
 */
const name = uniqueName('rcluster');
let redisCluster: RedisClusterFixture;
let sink: Sink;
let xtimer: Cluster;

beforeAll(async () => {
  redisCluster = await new RedisClusterFixture(3, 1).start();
  sink = await new Sink().start();
  xtimer = await new Cluster(
    {
      ...TEST_ENV,
      MYSQL_URL: `${MYSQL_SERVER}/${name}`,
      REDIS_URL: redisCluster.url,
      XTIMER_PREFIX: `${name}:`,
      LOG_LEVEL: 'info',
    },
    1,
  ).start();
}, 60_000);

afterAll(async () => {
  await xtimer?.stopAll('SIGKILL');
  await sink?.stop();
  await redisCluster?.stop();
  await dropDatabase(name);
});

describe('on a Redis Cluster of 3 masters with a replica each', () => {
  it('fires every run once, through the failover of the master that holds the execute queue', {
    timeout: 240_000,
  }, async () => {
    // Late runs still fire (fire_all, 5 min): a run whose job the dead master took with it is queued again.
    const ids = await createTimers(xtimer.api(), 20, {
      callback: { url: sink.url() },
      misfirePolicy: 'fire_all',
      misfireThresholdMs: 300_000,
    });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    await sleep(from + 8000 - Date.now());
    const before = deliveryReport(sink, ids, from, from + 5000);
    expect(before.missing).toEqual([]);

    const victim = await redisCluster.masterOf(`{${name}:execute}:execute:wait`);
    redisCluster.kill(victim);
    const killedAt = Date.now();
    await redisCluster.failedOver(victim);
    const failoverMs = Date.now() - killedAt;
    await sleep(10_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;

    // Jobs a master acknowledged and lost with its replica's lag are queued again by the
    // compensator once their minute is behind the scheduler: up to 2.5 minutes.
    const report = await settledDeliveryReport(sink, ids, from, to, 170_000, 500);
    console.log(
      `redis-cluster: failover in ${failoverMs} ms; expected=${report.expected} delivered=${report.delivered} ` +
        `missing=${report.missing.length} duplicates=${report.duplicates.length}`,
    );
    if (report.missing.length > 0) {
      // What the processes had to say (warnings and errors): a loss here has to be explained.
      const said = xtimer
        .output()
        .split('\n')
        .filter((line) => /"level":"(warn|error)"/.test(line));
      console.log(
        `redis-cluster: killed at ${new Date(killedAt).toISOString()}; warnings:\n${said.slice(-200).join('\n')}`,
      );
    }
    expect(report.missing).toEqual([]);
    expect(report.unexplainedDuplicates).toEqual([]);
    expect(report.duplicates).toEqual([]);
  });
});
