import { describe, expect, it } from 'vitest';
import { TaskRepository } from '../../src/storage/db/tasks/task-repository.js';
import { createKeys } from '../../src/storage/redis/keys.js';
import { SliceStore } from '../../src/storage/redis/runs/slice-store.js';
import { apiCall, createTimers, settledRun, sleep, useCluster } from '../helpers/cluster.js';

/**
 * A PATCH racing a migration: the migrator read the timer before the PATCH
 * and writes the old cron's runs after it, into MySQL and the slices. Each run carries
 * the timer version it was planned for: the old plan's runs are recorded skipped, never
 * called. The test plays the late migrator, writing what it would have written.
 */
const e2e = useCluster('staleplan');

describe('a PATCH during a migration', () => {
  it('never fires a run of the old cron written after it; such runs are recorded skipped', {
    timeout: 90_000,
  }, async () => {
    const [id] = await createTimers(e2e.cluster.api(), 1, {
      cron: '*/2 * * * * *',
      callback: { url: e2e.sink.url() },
    });
    const patched = await apiCall(e2e.cluster.api(), 'PATCH', `/api/v1/timers/${id}`, {
      cron: '1/2 * * * * *',
    });
    const patchedAt = Date.now();

    // The late migrator: version 1's even seconds, 4 to 14 s ahead, into MySQL and the slices.
    const start = Math.ceil((patchedAt + 4000) / 2000) * 2000;
    const stale = Array.from({ length: 5 }, (_, i) => ({
      timerId: id!,
      app: 'cluster',
      runAt: start + i * 2000,
      version: 1,
    }));
    await new TaskRepository(e2e.stores.database.db, e2e.stores.database.pool).insertRuns(stale);
    await new SliceStore(e2e.stores.redis, createKeys(e2e.stores.config.prefix), {
      buckets: 10,
      maxBuckets: 200,
    }).addRuns(stale);

    await sleep(stale.at(-1)!.runAt + 2000 - Date.now());
    const afterPatch = e2e.sink.forTimer(id!).filter((d) => d.scheduledAt > patchedAt + 1000);
    expect(afterPatch.length).toBeGreaterThan(3);
    expect(afterPatch.filter((d) => (d.scheduledAt / 1000) % 2 === 0)).toEqual([]);
    for (const run of stale) {
      const settled = await settledRun(e2e.cluster.api(), `${id}_${run.runAt}`, 10_000);
      expect(settled).toMatchObject({ status: 'skipped', attempts: 0 });
      expect(settled.error).toMatch(/^superseded: planned for timer version 1/);
    }
    expect(patched.cron).toBe('1/2 * * * * *');
  });
});
