import { describe, expect, it } from 'vitest';
import { sqlDateTime } from '../../src/storage/db/multi-row-insert.js';
import { createTimers, settledDeliveryReport, sleep, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * A process frozen past its leases (SIGSTOP for 30 s, as a VM paused) is taken over: its
 * runs go on elsewhere with the same task id and a higher attempt. Once it thaws it
 * neither sends what it lost nor records over the newer attempt: one success per run.
 */
const e2e = useCluster('frozen', {
  size: 2,
  // Calls take a while, so some are in flight when the process freezes.
  respond: () => ({ status: 200, body: 'ok', delayMs: 700 }),
});

describe('a process frozen past its leases', () => {
  it('is taken over with higher attempts, and after it thaws records nothing over them', {
    timeout: 240_000,
  }, async () => {
    const ids = await createTimers(e2e.cluster.api(), 20, {
      callback: { url: e2e.sink.url(), timeoutMs: 5000 },
    });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    await sleep(8000);
    const frozen = e2e.cluster.procs[0]!;
    frozen.child.kill('SIGSTOP');
    await sleep(30_000);
    frozen.child.kill('SIGCONT');
    await sleep(10_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const report = await settledDeliveryReport(e2e.sink, ids, from, to, 60_000, 1000);
    console.log(
      `frozen-owner: expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length} ` +
        `taken over and sent again=${report.duplicates.length} unexplained=${report.unexplainedDuplicates.length}`,
    );
    expect(report.missing).toEqual([]);
    // A repeat is a takeover: the same task id, a higher attempt.
    expect(report.unexplainedDuplicates).toEqual([]);
    expect(frozen.running).toBe(true);

    const [rows] = await eventually(
      async () => {
        const result = await e2e.stores.database.pool.query(
          'SELECT status, COUNT(*) AS n FROM tasks WHERE run_at >= ? AND run_at < ? GROUP BY status',
          [sqlDateTime(from), sqlDateTime(to)],
        );
        const counts = result[0] as Array<{ status: string; n: number }>;
        return counts.length === 1 && counts[0]!.status === 'succeeded' && result;
      },
      'one success per run',
      90_000,
      2000,
    );
    expect(rows).toEqual([{ status: 'succeeded', n: report.expected }]);
    // Where a run went out twice, history keeps the later attempt.
    const repeated = report.duplicates.slice(0, 50);
    for (const key of repeated) {
      const [timerId, runAt] = key.split('_').map(Number);
      const [found] = await e2e.stores.database.pool.query(
        'SELECT attempts FROM tasks WHERE timer_id = ? AND run_at = ?',
        [timerId, sqlDateTime(runAt!)],
      );
      const attempts = Math.max(...e2e.sink.deliveries.filter((d) => d.taskId === key).map((d) => d.attempt));
      expect(found).toEqual([{ attempts }]);
    }
  });
});
