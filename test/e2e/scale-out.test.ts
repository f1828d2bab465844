import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, createTimers, deliveryReport, sleep } from '../helpers/cluster.js';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * Scale-out: 1 api, 2 scheduler (scheduler + migrator) and 3 worker (trigger +
 * executor) processes on the same stores. 100 every-second timers for 30 s: nothing
 * missed or doubled, and the workers' own /metrics show more than one of them executed runs.
 */
let stores: TestStores;
let sink: Sink;
const procs: XtimerProcess[] = [];
let apiBase: string;
const workerMetrics: string[] = [];

beforeAll(async () => {
  stores = await createTestStores('scaleout');
  sink = await new Sink().start();
  const apiPort = await freePort();
  apiBase = `http://127.0.0.1:${apiPort}`;
  procs.push(
    new XtimerProcess('api', {
      ...stores.env,
      XTIMER_ROLES: 'api',
      PORT: String(apiPort),
      LOG_LEVEL: 'info',
    }),
  );
  for (let i = 0; i < 2; i++) {
    procs.push(
      new XtimerProcess(`scheduler${i}`, {
        ...stores.env,
        XTIMER_ROLES: 'scheduler,migrator',
        LOG_LEVEL: 'info',
      }),
    );
  }
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    workerMetrics.push(`http://127.0.0.1:${port}/metrics`);
    procs.push(
      new XtimerProcess(`worker${i}`, {
        ...stores.env,
        XTIMER_ROLES: 'trigger,executor',
        METRICS_PORT: String(port),
        // Slice walks are logged at debug: quiet at info.
        LOG_LEVEL: 'debug',
      }),
    );
  }
  await Promise.all(procs.map((p) => p.started()));
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await sink?.stop();
  await stores?.cleanup();
});

async function succeededOn(url: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const line = text.split('\n').find((l) => l.startsWith('xtimer_runs_total{outcome="succeeded"}'));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('1 api, 2 schedulers, 3 workers', () => {
  it('fire 100 every-second timers for 30 s with nothing missed or doubled, spread over the workers', {
    timeout: 150_000,
  }, async () => {
    const ids = await createTimers(apiBase, 100, { callback: { url: sink.url() } });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const to = from + 30_000;
    await sleep(to - Date.now());
    await eventually(
      () => deliveryReport(sink, ids, from, to).missing.length === 0,
      'every run delivered',
      15_000,
    ).catch(() => undefined);
    const report = deliveryReport(sink, ids, from, to);
    const perWorker = await Promise.all(workerMetrics.map(succeededOn));
    console.log(
      `scale-out: expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length} ` +
        `duplicates=${report.duplicates.length}; runs succeeded per worker: ${perWorker.join(', ')}`,
    );
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(perWorker.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(perWorker.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(report.expected);
    // The api process serves the cluster view: active timers and queue depths.
    const apiMetrics = await (await fetch(`${apiBase}/metrics`)).text();
    expect(apiMetrics).toMatch(/^xtimer_active_timers 100$/m);
    expect(apiMetrics).toMatch(/^xtimer_queue_jobs\{queue="execute",state="completed"\} \d+/m);
    // Slices were claimed by both schedulers or at least one, and walked by the workers.
    const walked = procs.filter((p) => p.name.startsWith('worker')).map((p) => p.logs('slice walked').length);
    expect(walked.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await apiCall(apiBase, 'GET', '/healthz');
  });
});
