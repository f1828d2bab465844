import { describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { createTimers, settledDeliveryReport, sleep, useCluster } from '../helpers/cluster.js';
import { REDIS_URL } from '../helpers/stores.js';

/**
 * Redis data loss: FLUSHDB of xtimer's Redis database while timers fire.
 * Runs keep firing from MySQL (the trigger's fallback), the migrator rebuilds the
 * slices, and no run is delivered twice. The test owns Redis database 7.
 */
const REDIS_DB_URL = `${REDIS_URL}/7`;
const e2e = useCluster('redisflush', { size: 2, storeEnv: { REDIS_URL: REDIS_DB_URL } });

describe('FLUSHDB mid-run', () => {
  it('keeps firing from MySQL, rebuilds the slices and doubles nothing', { timeout: 180_000 }, async () => {
    const ids = await createTimers(e2e.cluster.api(), 20, { callback: { url: e2e.sink.url() } });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    await sleep(10_000);

    const admin = createRedis(REDIS_DB_URL);
    const flushedAt = Date.now();
    await admin.flushdb();
    admin.disconnect();

    await sleep(30_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;
    const report = await settledDeliveryReport(e2e.sink, ids, from, to, 30_000, 500);
    console.log(
      `redis-flush: expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length} ` +
        `duplicates=${report.duplicates.length}`,
    );
    for (const key of report.duplicates.slice(0, 3)) {
      const ds = e2e.sink.deliveries.filter((d) => d.taskId === key);
      console.log(
        key,
        'flushedAt+',
        ds.map(
          (d) => `sched ${d.scheduledAt - flushedAt} arrived ${d.arrivedAt - flushedAt} attempt ${d.attempt}`,
        ),
      );
    }
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    // The runs of the seconds after the flush came while Redis had nothing to give.
    expect(
      e2e.sink.deliveries.some((d) => d.scheduledAt > flushedAt && d.scheduledAt < flushedAt + 3000),
    ).toBe(true);
    expect(e2e.cluster.output()).toContain('slices rebuilt from MySQL');
  });
});
