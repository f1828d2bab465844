import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, createTimers, deliveryReport, sleep } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * SIGTERM during load (issue 4): the process stops taking work, lets in-flight callbacks
 * finish, hands back what it had not started, and exits 0 within 10 s; the other process
 * fires what was handed back, so nothing is lost or doubled.
 */
let stores: TestStores;
let sink: Sink;
let cluster: Cluster;

beforeAll(async () => {
  stores = await createTestStores('sigterm');
  sink = await new Sink().start();
  cluster = await new Cluster({ ...stores.env, LOG_LEVEL: 'info' }, 2).start();
});

afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await sink?.stop();
  await stores?.cleanup();
});

describe('SIGTERM during load', () => {
  it('exits 0 within 10 s and loses or doubles nothing', { timeout: 120_000 }, async () => {
    // Slow callbacks, so some are in flight when the signal lands.
    sink.respond = () => ({ status: 200, body: 'ok', delayMs: 800 });
    const ids = await createTimers(cluster.api(), 30, { callback: { url: sink.url() } });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    // The signal lands 2.5 s into a minute, at least 8 s after the creates: while the top-up
    // that follows each minute's start plans these timers' next hour (~100,000 runs), on
    // whichever process took the minute's lock.
    const minute = 60_000;
    await sleep(Math.ceil((Date.now() + 8000) / minute) * minute + 2500 - Date.now());

    const victim = cluster.procs[0]!;
    const signalledAt = Date.now();
    const exited = await Promise.race([victim.stop('SIGTERM'), sleep(10_000).then(() => null)]);
    const exitMs = Date.now() - signalledAt;
    if (exited === null)
      console.log(`graceful-shutdown: still running; its log:\n${victim.output.slice(-8000)}`);
    expect(exited).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(10_000);
    expect(victim.output).toContain('"shut down"');
    const topUpStopped = victim.output.includes('top-up stopped part-way');

    await sleep(10_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;
    await eventually(
      () => deliveryReport(sink, ids, from, to).missing.length === 0,
      'every run delivered',
      20_000,
    ).catch(() => undefined);
    const report = deliveryReport(sink, ids, from, to);
    console.log(
      `graceful-shutdown: exit in ${exitMs} ms (top-up stopped: ${topUpStopped}); expected=${report.expected} ` +
        `delivered=${report.delivered} missing=${report.missing.length} duplicates=${report.duplicates.length}`,
    );
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
  });
});
