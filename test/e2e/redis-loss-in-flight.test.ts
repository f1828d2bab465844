import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { Cluster, createTimers, settledRun } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, REDIS_URL, type TestStores } from '../helpers/stores.js';

/**
 * FLUSHDB while callbacks are in flight: the claims are gone, and the trigger
 * fans the runs out again from MySQL. A run whose call is under way is its holder's:
 * it is not sent again. The test owns Redis database 8.
 */
const REDIS_DB_URL = `${REDIS_URL}/8`;
let stores: TestStores;
let sink: Sink;
let cluster: Cluster;

beforeAll(async () => {
  stores = await createTestStores('redisinflight', { REDIS_URL: REDIS_DB_URL });
  sink = await new Sink().start();
  // Each call takes 4 s: the flush lands while ten of them are under way.
  sink.respond = () => ({ status: 200, body: 'ok', delayMs: 4000 });
  cluster = await new Cluster({ ...stores.env, LOG_LEVEL: 'info' }, 2).start();
});

afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await sink?.stop();
  await stores?.cleanup();
});

describe('FLUSHDB with calls in flight', () => {
  it('sends none of the runs in flight a second time, and records each succeeded once', {
    timeout: 150_000,
  }, async () => {
    const ids = await createTimers(cluster.api(), 10, {
      cron: '*/15 * * * * *',
      callback: { url: sink.url(), timeoutMs: 10_000 },
    });
    // Wait for a slot of ten calls to arrive, then flush while they are being answered.
    const inFlight = await eventually(
      () => {
        const keys = new Set(sink.deliveries.map((d) => d.taskId));
        return keys.size >= 10 && [...keys];
      },
      'ten calls under way',
      40_000,
      20,
    );
    const admin = createRedis(REDIS_DB_URL);
    await admin.flushdb();
    admin.disconnect();

    // Past the answers, the re-fanned copies, and the next slot of runs.
    await eventually(
      () => sink.deliveries.filter((d) => !inFlight.includes(d.taskId)).length >= 10,
      'the next ten runs called',
      40_000,
    );
    for (const key of inFlight) {
      expect(
        sink.deliveries.filter((d) => d.taskId === key).map((d) => d.attempt),
        key,
      ).toEqual([1]);
    }
    for (const key of inFlight) {
      expect(await settledRun(cluster.api(), key, 30_000)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      });
    }
    expect(ids).toHaveLength(10);
  });
});
