import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTimers, sleep, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * A node whose clock runs 2 s ahead (libfaketime shifts xtimer's, not the sink's nor
 * Redis's): it still calls no run early. Runs are released by Redis's clock, and the
 * offset it measured is exported as a metric.
 */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

beforeAll(() => {
  if (!existsSync(LIBFAKETIME)) {
    throw new Error(
      `${LIBFAKETIME} not found: apt-get install -y faketime (this test runs xtimer with its clock 2 s ahead)`,
    );
  }
});

const e2e = useCluster('clockskew', {
  env: { LD_PRELOAD: LIBFAKETIME, FAKETIME: '+2s', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
});

describe('a node whose clock runs 2 s ahead', () => {
  it('calls no run before its time, and says how far off its clock is', { timeout: 60_000 }, async () => {
    const metrics = await (await fetch(`${e2e.cluster.api()}/metrics`)).text();
    const offset = Number(/^xtimer_clock_offset_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(offset).toBeGreaterThan(-2.2);
    expect(offset).toBeLessThan(-1.8);

    const ids = await createTimers(e2e.cluster.api(), 10, { callback: { url: e2e.sink.url() } });
    await eventually(() => ids.every((id) => e2e.sink.forTimer(id).length >= 8), 'runs delivered', 30_000);
    await sleep(1000);
    const early = e2e.sink.deliveries.filter((d) => d.arrivedAt < d.scheduledAt - 5);
    console.log(
      `clock-skew: offset ${offset} s; ${e2e.sink.deliveries.length} runs, earliest ${Math.min(
        ...e2e.sink.deliveries.map((d) => d.arrivedAt - d.scheduledAt),
      )} ms from its time`,
    );
    expect(early.map((d) => `${d.taskId} ${d.arrivedAt - d.scheduledAt} ms`)).toEqual([]);
  });
});
