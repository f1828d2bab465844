import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, Cluster, createTimers, deliveryReport, sleep } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, MYSQL_SERVER, type TestStores } from '../helpers/stores.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * MySQL unavailable for 10 s (issue 4): the process reaches MySQL through a proxy the
 * test cuts. Runs already in Redis keep firing; their results are buffered and written
 * once MySQL is back; nothing crashes and /readyz says what is down.
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
  cluster = await new Cluster(env, 1).start();
});

afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await proxy?.stop();
  await sink?.stop();
  await stores?.cleanup();
});

describe('MySQL unavailable for 10 s', () => {
  it('keeps firing, buffers the results and writes them when MySQL is back', {
    timeout: 120_000,
  }, async () => {
    const ids = await createTimers(cluster.api(), 10, { callback: { url: sink.url() } });
    await eventually(() => ids.every((id) => sink.forTimer(id).length >= 3), 'timers firing', 20_000);

    proxy.cut();
    const cutAt = Date.now();
    const ready = await fetch(`${cluster.api()}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).checks.mysql).toMatch(/^down/);
    await sleep(10_000);
    proxy.restore();
    const restoredAt = Date.now();

    // Every run due while MySQL was away was delivered, once.
    const from = Math.ceil(cutAt / 1000) * 1000;
    const to = Math.floor(restoredAt / 1000) * 1000;
    await eventually(
      () => deliveryReport(sink, ids, from, to).missing.length === 0,
      'runs during the outage',
      10_000,
    );
    const report = deliveryReport(sink, ids, from, to);
    expect(report.duplicates).toEqual([]);
    console.log(
      `mysql-outage: expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length}`,
    );

    // Their results reached MySQL once it was back.
    for (const id of ids) {
      await eventually(
        async () => {
          const page = await apiCall(
            cluster.api(),
            'GET',
            `/api/v1/timers/${id}/tasks?from=${from}&to=${to}&limit=100`,
          );
          return (
            page.items.length === (to - from) / 1000 && page.items.every((t: any) => t.status === 'succeeded')
          );
        },
        `results of timer ${id} written`,
        20_000,
        500,
      );
    }
    expect(cluster.procs[0]!.running).toBe(true);
    expect((await fetch(`${cluster.api()}/readyz`)).status).toBe(200);
  });
});
