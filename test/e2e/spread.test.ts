import { describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { apiCall, sleep, useCluster } from '../helpers/cluster.js';
import { REDIS_URL } from '../helpers/stores.js';

/**
 * Spread on two nodes: both resolve `H` and jitter to the same
 * instants (the preview of each, and what fires), and after FLUSHDB the re-plan keeps
 * them: every predicted run arrives once, at its predicted instant. The test owns Redis
 * database 12.
 */
const REDIS_DB_URL = `${REDIS_URL}/12`;
const e2e = useCluster('spread', { size: 2, storeEnv: { REDIS_URL: REDIS_DB_URL } });

describe('H and jitter across two nodes and a Redis flush', () => {
  it('agree on every instant, fire each once, and keep them after FLUSHDB', {
    timeout: 150_000,
  }, async () => {
    const a = e2e.cluster.apiOf(0);
    const b = e2e.cluster.apiOf(1);
    const create = (name: string, fields: Record<string, unknown>) =>
      apiCall(a, 'POST', '/api/v1/timers', {
        app: 'spread',
        name,
        status: 'active',
        callback: { url: e2e.sink.url() },
        ...fields,
      });
    const hashed = await Promise.all(
      Array.from({ length: 4 }, (_, i) => create(`hashed-${i}`, { cron: 'H/5 * * * * *' })),
    );
    const jittered = await Promise.all(
      Array.from({ length: 4 }, (_, i) => create(`jittered-${i}`, { cron: '* * * * * *', jitterMs: 900 })),
    );
    const timers = [...hashed, ...jittered];

    // Both nodes show the same resolved cron and preview the same instants.
    const from = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    const to = from + 30_000;
    const predicted = new Map<number, number[]>();
    for (const t of timers) {
      const [onA, onB] = await Promise.all(
        [a, b].map((base) => apiCall(base, 'GET', `/api/v1/timers/${t.id}`)),
      );
      expect(onB.resolvedCron).toBe(onA.resolvedCron);
      expect(onA.resolvedCron).not.toContain('H');
      const [pa, pb] = await Promise.all(
        [a, b].map((base) => apiCall(base, 'GET', `/api/v1/timers/${t.id}/preview?count=60&from=${from}`)),
      );
      expect(pb.items).toEqual(pa.items);
      predicted.set(
        t.id,
        (pa.items as string[]).map((s) => Date.parse(s)).filter((ms) => ms < to),
      );
    }
    for (const t of jittered) {
      const runs = predicted.get(t.id)!;
      expect(runs.length).toBeGreaterThanOrEqual(29);
      expect(runs.some((r) => r % 1000 !== 0)).toBe(true);
    }

    // Half way through, Redis loses everything: the re-plan must put each run where it was.
    await sleep(from + 12_000 - Date.now());
    const admin = createRedis(REDIS_DB_URL);
    await admin.flushdb();
    admin.disconnect();
    await sleep(to + 5000 - Date.now());

    for (const t of timers) {
      const got = e2e.sink.forTimer(t.id).filter((d) => d.scheduledAt >= from && d.scheduledAt < to);
      const times = got.map((d) => d.scheduledAt).sort((x, y) => x - y);
      expect(new Set(times).size, `timer ${t.id} doubled a run`).toBe(times.length);
      expect(times, `timer ${t.id} fired off its predicted instants`).toEqual(predicted.get(t.id));
      for (const d of got) {
        expect(d.taskId).toBe(`${t.id}_${d.scheduledAt}`);
        if (t.jitterMs > 0) {
          expect(d.nominalAt % 1000).toBe(0);
          expect(d.scheduledAt - d.nominalAt).toBeGreaterThanOrEqual(0);
          expect(d.scheduledAt - d.nominalAt).toBeLessThan(900);
        } else {
          expect(d.nominalAt).toBe(d.scheduledAt);
        }
      }
    }
  });
});
