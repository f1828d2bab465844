import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, createTimers, deliveryReport, settledRun, sleep, useCluster } from '../helpers/cluster.js';
import { eventually, MYSQL_SERVER } from '../helpers/stores.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * MySQL away for 60 s (a managed failover): three processes reach MySQL through a proxy
 * the test cuts. Runs already planned in Redis fire on time during the outage, also those
 * of timers created just before it, which no executor has read yet: what they fire by is
 * in Redis. Their results are written once MySQL is back; nothing crashes, and /readyz
 * says what is down meanwhile.
 */
let proxy: TcpProxy;

const e2e = useCluster('mysqlout', {
  size: 3,
  // The processes reach MySQL through the proxy the test cuts.
  env: async (stores) => {
    const server = new URL(MYSQL_SERVER);
    proxy = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
    return { MYSQL_URL: `mysql://root@127.0.0.1:${proxy.port}/${stores.name}` };
  },
});

afterAll(async () => {
  await proxy?.stop();
});

describe('MySQL unavailable for 60 s', () => {
  it('fires every run planned before the outage while it lasts, and writes the results after', {
    timeout: 180_000,
  }, async () => {
    const api = e2e.cluster.api();
    // Sparse timers, each firing once a minute at a second of its own, created just now:
    // no executor has read them when their runs come due.
    const start = Math.ceil((Date.now() + 8000) / 1000) * 1000;
    const sparse: number[] = [];
    for (let i = 0; i < 24; i++) {
      const second = new Date(start + i * 2000).getUTCSeconds();
      sparse.push(
        ...(await createTimers(api, 1, { cron: `${second} * * * * *`, callback: { url: e2e.sink.url() } })),
      );
    }
    const oneShots = await Promise.all(
      [12_000, 24_000, 36_000].map(async (ms) => {
        const [id] = await createTimers(api, 1, {
          cron: undefined,
          at: new Date(start + ms).toISOString(),
          callback: { url: e2e.sink.url() },
        });
        return id!;
      }),
    );

    await sleep(start - 3000 - Date.now());
    proxy.cut();
    const cutAt = Date.now();
    const ready = await fetch(`${api}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).checks.mysql).toMatch(/^down/);
    await sleep(60_000 - (Date.now() - cutAt));
    const restoredAt = Date.now();
    const arrivedBeforeRestore = e2e.sink.deliveries.filter((d) => d.arrivedAt < restoredAt);
    proxy.restore();

    // Every run due in the outage (but its last 3 s) was called before MySQL came back, once.
    const owedUntil = restoredAt - 3000;
    const owed = [...sparse, ...oneShots].flatMap((id) => {
      const runs = e2e.sink.forTimer(id).map((d) => d.scheduledAt);
      return runs.filter((at) => at >= cutAt && at < owedUntil).map((at) => `${id}_${at}`);
    });
    const expectedSparse = sparse.filter((_, i) => start + i * 2000 < owedUntil).length;
    expect(owed.length).toBeGreaterThanOrEqual(expectedSparse + oneShots.length);
    const early = new Set(arrivedBeforeRestore.map((d) => d.taskId));
    expect(owed.filter((key) => !early.has(key))).toEqual([]);
    const report = deliveryReport(e2e.sink, sparse, 0, 0);
    expect(report.duplicates).toEqual([]);
    const counts = e2e.sink.countByTask();
    expect(owed.filter((key) => counts.get(key) !== 1)).toEqual([]);
    console.log(`mysql-outage: ${owed.length} runs due in the outage, all called during it, none twice`);

    // Their results reach MySQL once it is back.
    for (const key of owed) {
      expect(await settledRun(api, key, 60_000)).toMatchObject({ status: 'succeeded', attempts: 1 });
    }
    expect(e2e.cluster.procs.every((p) => p.running)).toBe(true);
    await eventually(async () => (await fetch(`${api}/readyz`)).status === 200, 'ready again', 20_000);
    // The one-shots completed their timers once MySQL took it.
    for (const id of oneShots) {
      await eventually(
        async () => (await apiCall(api, 'GET', `/api/v1/timers/${id}`)).status === 'completed',
        `one-shot ${id} completed`,
        90_000,
        1000,
      );
    }
  });
});
