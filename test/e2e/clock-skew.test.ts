import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, createTimers, sleep } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * A node whose clock runs 2 s ahead (libfaketime shifts xtimer's, not the sink's nor
 * Redis's): it still calls no run early. Runs are released by Redis's clock, and the
 * offset it measured is exported as a metric.
 */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

let stores: TestStores;
let sink: Sink;
let cluster: Cluster;

beforeAll(async () => {
  if (!existsSync(LIBFAKETIME)) {
    throw new Error(
      `${LIBFAKETIME} not found: apt-get install -y faketime (this test runs xtimer with its clock 2 s ahead)`,
    );
  }
  stores = await createTestStores('clockskew');
  sink = await new Sink().start();
  cluster = await new Cluster(
    {
      ...stores.env,
      LOG_LEVEL: 'info',
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME: '+2s',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    1,
  ).start();
});
afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await sink?.stop();
  await stores?.cleanup();
});

describe('a node whose clock runs 2 s ahead', () => {
  it('calls no run before its time, and says how far off its clock is', { timeout: 60_000 }, async () => {
    const metrics = await (await fetch(`${cluster.api()}/metrics`)).text();
    const offset = Number(/^xtimer_clock_offset_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(offset).toBeGreaterThan(-2.2);
    expect(offset).toBeLessThan(-1.8);

    const ids = await createTimers(cluster.api(), 10, { callback: { url: sink.url() } });
    await eventually(() => ids.every((id) => sink.forTimer(id).length >= 8), 'runs delivered', 30_000);
    await sleep(1000);
    const early = sink.deliveries.filter((d) => d.arrivedAt < d.scheduledAt - 5);
    console.log(
      `clock-skew: offset ${offset} s; ${sink.deliveries.length} runs, earliest ${Math.min(
        ...sink.deliveries.map((d) => d.arrivedAt - d.scheduledAt),
      )} ms from its time`,
    );
    expect(early.map((d) => `${d.taskId} ${d.arrivedAt - d.scheduledAt} ms`)).toEqual([]);
  });
});
