import { describe, expect, it } from 'vitest';
import { sqlDateTime } from '../../src/storage/db/multi-row-insert.js';
import { createTimers, deliveryReport, sleep, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * More runs due than the service can call: 100 every-second timers of one app
 * whose receiver takes 1 s, with APP_MAX_IN_FLIGHT 20 — 20 calls a second for 100 due.
 * Runs get late, and those later than the misfire threshold are recorded missed; none is
 * lost or doubled; once the receiver is fast again the service catches up by itself.
 */
let slow = true;
const e2e = useCluster('overload', {
  env: { APP_MAX_IN_FLIGHT: '20' },
  respond: () => ({ status: 200, body: 'ok', ...(slow ? { delayMs: 1000 } : {}) }),
});

async function statusCounts(from: number, to: number): Promise<Record<string, number>> {
  const [rows] = await e2e.stores.database.pool.query(
    'SELECT status, COUNT(*) AS n FROM tasks WHERE run_at >= ? AND run_at < ? GROUP BY status',
    [sqlDateTime(from), sqlDateTime(to)],
  );
  return Object.fromEntries(
    (rows as Array<{ status: string; n: number }>).map((r) => [r.status, Number(r.n)]),
  );
}

describe('overload, then recovery', () => {
  it('delivers or records missed every owed run, doubles none, and is on time again once load drops', {
    timeout: 200_000,
  }, async () => {
    const ids = await createTimers(e2e.cluster.api(), 100, {
      callback: { url: e2e.sink.url(), timeoutMs: 5000 },
      misfireThresholdMs: 5000,
      retry: { maxAttempts: 1, backoffMs: 0 },
    });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    await sleep(25_000);
    slow = false;
    const fastFrom = Math.ceil(Date.now() / 1000) * 1000 + 15_000;
    await sleep(30_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;

    const settled = await eventually(
      async () => {
        const counts = await statusCounts(from, to);
        return !counts.pending && !counts.running && counts;
      },
      'every owed run settled',
      60_000,
      1000,
    );
    const owed = ids.length * ((to - from) / 1000);
    const report = deliveryReport(e2e.sink, ids, from, to);
    console.log(
      `overload-recovery: owed=${owed} ${JSON.stringify(settled)} delivered=${report.delivered} ` +
        `duplicates=${report.duplicates.length}`,
    );
    expect((settled.succeeded ?? 0) + (settled.missed ?? 0)).toBe(owed);
    expect(settled.succeeded).toBe(report.delivered);
    expect(settled.missed).toBeGreaterThan(0);
    expect(report.duplicates).toEqual([]);
    // Recovered: every run of the last stretch went out.
    expect(deliveryReport(e2e.sink, ids, fastFrom, to).missing).toEqual([]);
  });
});
