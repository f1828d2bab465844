import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, Cluster, createTimers, deliveryReport, settledRun, sleep } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, MYSQL_SERVER, type TestStores } from '../helpers/stores.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * MySQL away for 60 s (a managed failover): three processes reach MySQL through a proxy
 * the test cuts. Runs already planned in Redis fire on time during the outage, also those
 * of timers created just before it, which no executor has read yet: what they fire by is
 * in Redis. Their results are written once MySQL is back; nothing crashes, and /readyz
 * says what is down meanwhile.
 */
let stores: TestStores;
let sink: Sink;
let proxy: TcpProxy;
let cluster: Cluster;

beforeAll(async () => {
  stores = await createTestStores('mysqlout');
  const server = new URL(MYSQL_SERVER);
  proxy = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
  sink = await new Sink().start();
  const env = {
    ...stores.env,
    MYSQL_URL: `mysql://root@127.0.0.1:${proxy.port}/${stores.name}`,
    LOG_LEVEL: 'info',
  };
  cluster = await new Cluster(env, 3).start();
});

afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await proxy?.stop();
  await sink?.stop();
  await stores?.cleanup();
});

describe('MySQL unavailable for 60 s', () => {
  it('fires every run planned before the outage while it lasts, and writes the results after', {
    timeout: 180_000,
  }, async () => {
    const api = cluster.api();
    // Sparse timers, each firing once a minute at a second of its own, created just now:
    // no executor has read them when their runs come due.
    const start = Math.ceil((Date.now() + 8000) / 1000) * 1000;
    const sparse: number[] = [];
    for (let i = 0; i < 24; i++) {
      const second = new Date(start + i * 2000).getUTCSeconds();
      sparse.push(
        ...(await createTimers(api, 1, { cron: `${second} * * * * *`, callback: { url: sink.url() } })),
      );
    }
    const oneShots = await Promise.all(
      [12_000, 24_000, 36_000].map(async (ms) => {
        const [id] = await createTimers(api, 1, {
          cron: undefined,
          at: new Date(start + ms).toISOString(),
          callback: { url: sink.url() },
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
    const arrivedBeforeRestore = sink.deliveries.filter((d) => d.arrivedAt < restoredAt);
    proxy.restore();

    // Every run due in the outage (but its last 3 s) was called before MySQL came back, once.
    const owedUntil = restoredAt - 3000;
    const owed = [...sparse, ...oneShots].flatMap((id) => {
      const runs = sink.forTimer(id).map((d) => d.scheduledAt);
      return runs.filter((at) => at >= cutAt && at < owedUntil).map((at) => `${id}_${at}`);
    });
    const expectedSparse = sparse.filter((_, i) => start + i * 2000 < owedUntil).length;
    expect(owed.length).toBeGreaterThanOrEqual(expectedSparse + oneShots.length);
    const early = new Set(arrivedBeforeRestore.map((d) => d.taskId));
    expect(owed.filter((key) => !early.has(key))).toEqual([]);
    const report = deliveryReport(sink, sparse, 0, 0);
    expect(report.duplicates).toEqual([]);
    const counts = sink.countByTask();
    expect(owed.filter((key) => counts.get(key) !== 1)).toEqual([]);
    console.log(`mysql-outage: ${owed.length} runs due in the outage, all called during it, none twice`);

    // Their results reach MySQL once it is back.
    for (const key of owed) {
      expect(await settledRun(api, key, 60_000)).toMatchObject({ status: 'succeeded', attempts: 1 });
    }
    expect(cluster.procs.every((p) => p.running)).toBe(true);
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
