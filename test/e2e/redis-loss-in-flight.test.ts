import { describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { createTimers, settledRun, useCluster } from '../helpers/cluster.js';
import { eventually, REDIS_URL } from '../helpers/stores.js';

/**
 * FLUSHDB while callbacks are in flight: the claims are gone, and the trigger
 * fans the runs out again from MySQL. A run whose call is under way is its holder's:
 * it is not sent again. The test owns Redis database 8.
 */
const REDIS_DB_URL = `${REDIS_URL}/8`;
const e2e = useCluster('redisinflight', {
  size: 2,
  storeEnv: { REDIS_URL: REDIS_DB_URL },
  // Each call takes 4 s: the flush lands while ten of them are under way.
  respond: () => ({ status: 200, body: 'ok', delayMs: 4000 }),
});

describe('FLUSHDB with calls in flight', () => {
  it('sends none of the runs in flight a second time, and records each succeeded once', {
    timeout: 150_000,
  }, async () => {
    const ids = await createTimers(e2e.cluster.api(), 10, {
      cron: '*/15 * * * * *',
      callback: { url: e2e.sink.url(), timeoutMs: 10_000 },
    });
    // Wait for a slot of ten calls to arrive, then flush while they are being answered.
    const inFlight = await eventually(
      () => {
        const keys = new Set(e2e.sink.deliveries.map((d) => d.taskId));
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
      () => e2e.sink.deliveries.filter((d) => !inFlight.includes(d.taskId)).length >= 10,
      'the next ten runs called',
      40_000,
    );
    for (const key of inFlight) {
      expect(
        e2e.sink.deliveries.filter((d) => d.taskId === key).map((d) => d.attempt),
        key,
      ).toEqual([1]);
    }
    for (const key of inFlight) {
      expect(await settledRun(e2e.cluster.api(), key, 30_000)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      });
    }
    expect(ids).toHaveLength(10);
  });
});
