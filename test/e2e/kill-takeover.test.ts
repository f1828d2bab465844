import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, Cluster, createTimers, deliveryReport, sleep } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * Crash takeover (issue 4): 50 every-second timers on 3 processes with every role;
 * a random process is killed with SIGKILL every 5-10 s for 60 s and restarted. Every
 * run of the window must arrive, and a run may arrive twice only if its callback was in
 * flight at a kill, the repeat carrying a higher attempt number.
 */
let stores: TestStores;
let sink: Sink;
let cluster: Cluster;

beforeAll(async () => {
  stores = await createTestStores('killtake');
  sink = await new Sink().start();
  cluster = await new Cluster({ ...stores.env, LOG_LEVEL: 'info' }, 3).start();
});

afterAll(async () => {
  await cluster?.stopAll('SIGKILL');
  await sink?.stop();
  await stores?.cleanup();
});

describe('kill -9 of any process', () => {
  it('loses no run and doubles only runs in flight at a kill (with attempt >= 2)', {
    timeout: 420_000,
  }, async () => {
    const ids = await createTimers(cluster.api(), 50, { callback: { url: sink.url() } });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const chaosEnd = Date.now() + 60_000;
    const kills: string[] = [];
    while (Date.now() < chaosEnd) {
      await sleep(5000 + Math.random() * 5000);
      const victim = Math.floor(Math.random() * cluster.size);
      kills.push(`p${victim}@${new Date().toISOString()}`);
      await cluster.kill(victim);
      await cluster.restart(victim);
    }
    const to = Math.floor(chaosEnd / 1000) * 1000;
    // Stalled jobs are taken over within ~15 s; allow for a restart and the overdue burst.
    await eventually(
      () => deliveryReport(sink, ids, from, to).missing.length === 0,
      'every run delivered',
      60_000,
      1000,
    ).catch(() => undefined);
    await sleep(3000);
    const report = deliveryReport(sink, ids, from, to);
    console.log(
      `kill-takeover: kills=${kills.length} expected=${report.expected} delivered=${report.delivered} ` +
        `missing=${report.missing.length} duplicates=${report.duplicates.length} ` +
        `unexplained=${report.unexplainedDuplicates.length}`,
    );
    expect(kills.length).toBeGreaterThanOrEqual(6);
    expect(report.missing).toEqual([]);
    expect(report.unexplainedDuplicates).toEqual([]);

    // A repeated run shows its attempts in history. If the process that delivered it last
    // was killed before writing its outcome, the compensator settles the row from the
    // claim record within a couple of minutes.
    for (const key of report.duplicates.slice(0, 10)) {
      const [timerId] = key.split('_');
      const run = await eventually(
        async () => {
          const page = await apiCall(cluster.api(), 'GET', `/api/v1/timers/${timerId}/tasks?limit=500`);
          const found = page.items.find((t: any) => t.id === key);
          return found && found.status !== 'running' && found.status !== 'pending' && found;
        },
        `history of ${key}`,
        150_000,
        2000,
      );
      expect(run.attempts).toBeGreaterThanOrEqual(2);
    }
  });
});
