import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDateTime } from '../../src/storage/db/multi-row-insert.js';
import { Cluster, createTimers, deliveryReport, settledDeliveryReport, sleep } from '../helpers/cluster.js';
import { RedisSentinelFixture } from '../helpers/redis-sentinel.js';
import { Sink } from '../helpers/sink.js';
import { dropDatabase, eventually, MYSQL_SERVER, TEST_ENV, uniqueName } from '../helpers/stores.js';

/**
 * xtimer on Redis Sentinel: a master, one replica and three Sentinels, started for this
 * test on free ports and torn down after it, under two xtimer processes. Timers fire on
 * time and once, and keep doing so when the master is killed and the Sentinels promote
 * its replica. The servers require a password and the Sentinels one of their own, so
 * every connection, BullMQ's and each reconnect after the failover included, carries both.
 */
const TIMERS = 100;
const name = uniqueName('rsentinel');
let redis: RedisSentinelFixture;
let sink: Sink;
let xtimer: Cluster;

beforeAll(async () => {
  redis = await new RedisSentinelFixture('xtimer-e2e', 1, 3, {
    password: 'e2e+master',
    sentinelPassword: 'e2e/sentinel',
  }).start();
  sink = await new Sink().start();
  xtimer = await new Cluster(
    {
      ...TEST_ENV,
      MYSQL_URL: `${MYSQL_SERVER}/${name}`,
      REDIS_URL: redis.url,
      XTIMER_PREFIX: `${name}:`,
      LOG_LEVEL: 'info',
    },
    2,
  ).start();
}, 60_000);

afterAll(async () => {
  await xtimer?.stopAll('SIGKILL');
  await sink?.stop();
  await redis?.stop();
  await dropDatabase(name);
});

/** How the rows of `ids` in [from, to) stand: a count per status. */
async function statuses(ids: number[], from: number, to: number): Promise<Record<string, number>> {
  const conn = await mysql.createConnection(`${MYSQL_SERVER}/${name}`);
  try {
    const [rows] = await conn.query(
      'SELECT status, COUNT(*) AS n FROM tasks WHERE timer_id IN (?) AND run_at >= ? AND run_at < ? GROUP BY status',
      [ids, sqlDateTime(from), sqlDateTime(to)],
    );
    return Object.fromEntries(
      (rows as Array<{ status: string; n: number }>).map((r) => [r.status, Number(r.n)]),
    );
  } finally {
    await conn.end();
  }
}

describe('on Redis Sentinel, a master with one replica and three Sentinels', () => {
  it('fires every run once, through the failover that promotes the replica', {
    timeout: 240_000,
  }, async () => {
    const startedAt = Date.now();
    // Late runs still fire (fire_all, 5 min): a run whose job the dead master took with it is queued again.
    const ids = await createTimers(xtimer.api(), TIMERS, {
      callback: { url: sink.url() },
      misfirePolicy: 'fire_all',
      misfireThresholdMs: 300_000,
    });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    await sleep(from + 8000 - Date.now());
    const before = deliveryReport(sink, ids, from, from + 5000);
    expect(before.missing).toEqual([]);

    const victim = await redis.masterPort();
    redis.kill(victim);
    const killedAt = Date.now();
    const promoted = await redis.failedOver(victim);
    const failoverMs = Date.now() - killedAt;
    await sleep(15_000 - (Date.now() - killedAt));
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;

    // Jobs the master acknowledged and lost with its replica's lag are queued again by the
    // compensator once their minute is behind the scheduler: up to 2.5 minutes.
    const report = await settledDeliveryReport(sink, ids, from, to, 170_000, 500);
    console.log(
      `redis-sentinel: ${TIMERS} timers; master :${victim} killed, :${promoted} promoted in ${failoverMs} ms; ` +
        `expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length} ` +
        `duplicates=${report.duplicates.length}; settled ${Date.now() - to} ms after the window`,
    );
    // Runs the failover made late: when they were due (from the kill) and how late they came.
    const late = sink.deliveries.filter((d) => d.arrivedAt - d.scheduledAt > 3000 && d.scheduledAt >= from);
    if (late.length > 0) {
      const due = late.map((d) => d.scheduledAt - killedAt);
      console.log(
        `redis-sentinel: ${late.length} runs more than 3 s late, due ${Math.min(...due)}..${Math.max(...due)} ms ` +
          `after the kill, the latest ${Math.max(...late.map((d) => d.arrivedAt - d.scheduledAt))} ms late`,
      );
    }
    if (report.missing.length > 0 || report.duplicates.length > 0 || late.length > 0) {
      // What the processes had to say (warnings and errors): a loss, a repeat or a run
      // held up for longer than the failover has to be explained.
      const said = xtimer
        .output()
        .split('\n')
        .filter((line) => /"level":"(warn|error)"/.test(line));
      console.log(
        `redis-sentinel: killed at ${new Date(killedAt).toISOString()}; warnings:\n${said.slice(-200).join('\n')}`,
      );
    }
    expect(report.missing).toEqual([]);
    expect(report.unexplainedDuplicates).toEqual([]);
    expect(report.duplicates).toEqual([]);

    // History: one row per run, each left succeeded (the sink answers 200), none pending or running.
    const rows = await eventually(
      async () => {
        const counts = await statuses(ids, from, to);
        return counts.succeeded === report.expected && counts;
      },
      'every run recorded succeeded',
      30_000,
      500,
    ).catch(() => statuses(ids, from, to));
    expect(rows).toEqual({ succeeded: report.expected });
    console.log(`redis-sentinel: the test took ${Date.now() - startedAt} ms after start-up`);
  });
});
