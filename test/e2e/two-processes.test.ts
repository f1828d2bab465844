import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/** Two processes with every role on the same stores: each run is delivered exactly once. */
const e2e = useCluster('twoprocs', { size: 2 });

describe('two processes running all roles', () => {
  it('deliver every run of 20 every-second timers exactly once', { timeout: 90_000 }, async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${e2e.base}/api/v1/timers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          app: 'pair',
          name: `t${i}`,
          cron: '* * * * * *',
          status: 'active',
          callback: { url: e2e.sink.url() },
        }),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: number }).id);
    }
    const from = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const to = from + 15_000;
    await eventually(() => Date.now() > to + 3000, 'the observation window to pass', 30_000, 200);
    for (const id of ids) {
      await fetch(`${e2e.base}/api/v1/timers/${id}/disable`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
    }

    const counts = e2e.sink.countByTask();
    const missing: string[] = [];
    const doubled: string[] = [];
    for (const id of ids) {
      for (let t = from; t < to; t += 1000) {
        const n = counts.get(`${id}_${t}`) ?? 0;
        if (n === 0) missing.push(`${id}_${t}`);
        if (n > 1) doubled.push(`${id}_${t}`);
      }
    }
    expect({ missing, doubled }).toEqual({ missing: [], doubled: [] });
  });
});
