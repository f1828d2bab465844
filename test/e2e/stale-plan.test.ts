import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskRepository } from '../../src/storage/db/task-repository.js';
import { createKeys } from '../../src/storage/redis/keys.js';
import { SliceStore } from '../../src/storage/redis/runs/slice-store.js';
import { apiCall, Cluster, createTimers, settledRun, sleep } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, type TestStores } from '../helpers/stores.js';

/**
 * A PATCH racing a migration: the migrator read the timer before the PATCH
 * and writes the old cron's runs after it, into MySQL and the slices. Each run carries
 * the timer version it was planned for: the old plan's runs are recorded skipped, never
 * called. The test plays the late migrator, writing what it would have written.
 */
let stores: TestStores;
let sink: Sink;
let cluster: Cluster;

beforeAll(async () => {
  stores = await createTestStores('staleplan');
  sink = await new Sink().start();
  cluster = await new Cluster({ ...stores.env, LOG_LEVEL: 'info' }, 1).start();
});

afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await sink?.stop();
  await stores?.cleanup();
});

describe('a PATCH during a migration', () => {
  it('never fires a run of the old cron written after it; such runs are recorded skipped', {
    timeout: 90_000,
  }, async () => {
    const [id] = await createTimers(cluster.api(), 1, {
      cron: '*/2 * * * * *',
      callback: { url: sink.url() },
    });
    const patched = await apiCall(cluster.api(), 'PATCH', `/api/v1/timers/${id}`, { cron: '1/2 * * * * *' });
    const patchedAt = Date.now();

    // The late migrator: version 1's even seconds, 4 to 14 s ahead, into MySQL and the slices.
    const start = Math.ceil((patchedAt + 4000) / 2000) * 2000;
    const stale = Array.from({ length: 5 }, (_, i) => ({
      timerId: id!,
      app: 'cluster',
      runAt: start + i * 2000,
      version: 1,
    }));
    await new TaskRepository(stores.database.db, stores.database.pool).insertRuns(stale);
    await new SliceStore(stores.redis, createKeys(stores.config.prefix), {
      buckets: 10,
      maxBuckets: 200,
    }).addRuns(stale);

    await sleep(stale.at(-1)!.runAt + 2000 - Date.now());
    const afterPatch = sink.forTimer(id!).filter((d) => d.scheduledAt > patchedAt + 1000);
    expect(afterPatch.length).toBeGreaterThan(3);
    expect(afterPatch.filter((d) => (d.scheduledAt / 1000) % 2 === 0)).toEqual([]);
    for (const run of stale) {
      const settled = await settledRun(cluster.api(), `${id}_${run.runAt}`, 10_000);
      expect(settled).toMatchObject({ status: 'skipped', attempts: 0 });
      expect(settled.error).toMatch(/^superseded: planned for timer version 1/);
    }
    expect(patched.cron).toBe('1/2 * * * * *');
  });
});
