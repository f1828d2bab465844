import { describe, expect, it } from 'vitest';
import { apiCall, deliveryReport, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * Backfills end to end: a backfill of 200 past runs is called at its pace
 * (BACKFILL_RATE, 50 a second by default), each run once, with X-Xtimer-Trigger:
 * backfill, while another app's every-second timer keeps its instants.
 */
const e2e = useCluster('backfill');

const timer = (app: string) =>
  apiCall(e2e.cluster.api(), 'POST', '/api/v1/timers', {
    app,
    name: `${app}-every-second`,
    cron: '* * * * * *',
    status: 'active',
    callback: { url: e2e.sink.url() },
  });

describe('a backfill of 200 past runs', () => {
  it('calls each once, at its pace, while another app stays on time', { timeout: 120_000 }, async () => {
    const steady = await timer('steady');
    const catchup = await timer('catchup');
    const from = Math.floor(Date.now() / 1000) * 1000 - 250_000;
    const to = from + 200_000;
    const startedAt = Date.now();
    const started = await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${catchup.id}/backfills`, {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
    });
    expect(started).toMatchObject({ status: 'sending', runs: 200, planned: 200 });
    const path = `/api/v1/timers/${catchup.id}/backfills/${started.id}`;
    const done = await eventually(
      async () => {
        const b = await apiCall(e2e.cluster.api(), 'GET', path);
        return b.status === 'completed' ? b : null;
      },
      'the backfill completed',
      90_000,
      250,
    );
    const endedAt = Date.now();
    expect(done).toMatchObject({ sent: 200, done: 200, failed: 0, progress: { succeeded: 200 } });

    const backfilled = e2e.sink.deliveries.filter(
      (d) => d.timerId === catchup.id && d.headers['x-xtimer-trigger'] === 'backfill',
    );
    const report = deliveryReport({ deliveries: backfilled }, [catchup.id], from, to);
    const arrivals = backfilled.map((d) => d.arrivedAt);
    const spreadMs = Math.max(...arrivals) - Math.min(...arrivals);
    // Steady's runs due while the backfill was being called, bar the last second.
    const window = [Math.ceil(startedAt / 1000) * 1000, Math.floor(endedAt / 1000) * 1000 - 1000] as const;
    const steadyReport = deliveryReport(e2e.sink, [steady.id], ...window);
    const lateness = e2e.sink
      .forTimer(steady.id)
      .filter((d) => d.scheduledAt >= window[0] && d.scheduledAt < window[1])
      .map((d) => d.arrivedAt - d.scheduledAt)
      .sort((a, b) => a - b);
    console.log(
      `backfill: 200 runs in ${spreadMs} ms, delivered=${report.delivered} duplicates=${report.duplicates.length}; ` +
        `steady expected=${steadyReport.expected} missing=${steadyReport.missing.length} ` +
        `lateness p50=${lateness[Math.floor(lateness.length / 2)]} ms max=${lateness.at(-1)} ms`,
    );
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(backfilled).toHaveLength(200);
    // Paced: 200 runs at 50 a second take about 4 s; sent at once they would take a blink.
    expect(spreadMs).toBeGreaterThanOrEqual(2500);
    expect(steadyReport.expected).toBeGreaterThan(0);
    expect(steadyReport.missing).toEqual([]);
    expect(steadyReport.duplicates).toEqual([]);
    expect(lateness.every((ms) => ms >= 0)).toBe(true);

    // Its runs are not late: each says how long after the backfill began it was called.
    const runs = (
      await apiCall(
        e2e.cluster.api(),
        'GET',
        `/api/v1/timers/${catchup.id}/tasks?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&limit=200`,
      )
    ).items as Array<{ trigger: string; latencyMs: number | null; sinceBackfillStartMs: number | null }>;
    expect(runs).toHaveLength(200);
    for (const r of runs) {
      expect(r).toMatchObject({ trigger: 'backfill', latencyMs: null });
      expect(r.sinceBackfillStartMs).toBeGreaterThanOrEqual(0);
      expect(r.sinceBackfillStartMs).toBeLessThanOrEqual(endedAt - startedAt);
    }
    // Paced: the last went out seconds after the first.
    const since = runs.map((r) => r.sinceBackfillStartMs ?? 0);
    expect(Math.max(...since) - Math.min(...since)).toBeGreaterThanOrEqual(2000);

    // The same range again: every run is in the history now, so it makes none.
    const again = await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${catchup.id}/backfills`, {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
    });
    expect(again).toMatchObject({ runs: 200, planned: 0, status: 'completed' });
  });
});
