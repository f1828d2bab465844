import { describe, expect, it } from 'vitest';
import { sqlDateTime } from '../../src/storage/db/multi-row-insert.js';
import { createTimers, settledDeliveryReport, sleep, useCluster } from '../helpers/cluster.js';
import { seededRandom } from '../helpers/random.js';
import { eventually } from '../helpers/stores.js';

/**
 * Crash takeover: 50 every-second timers on 3 processes with every
 * role; a random process is killed with SIGKILL six times, 5-10 s apart, and restarted.
 * Every run of the window must arrive; a run may arrive twice only if its callback was in
 * flight at a kill, the repeat carrying a higher attempt number; and history records
 * exactly one success for every run. CHAOS_SEED replays a run's choice of victims.
 */
const KILLS = 6;
const e2e = useCluster('killtake', { size: 3 });

async function statuses(from: number, to: number): Promise<Record<string, number>> {
  const [rows] = await e2e.stores.database.pool.query(
    'SELECT status, COUNT(*) AS n FROM tasks WHERE run_at >= ? AND run_at < ? GROUP BY status',
    [sqlDateTime(from), sqlDateTime(to)],
  );
  return Object.fromEntries(
    (rows as Array<{ status: string; n: number }>).map((r) => [r.status, Number(r.n)]),
  );
}

describe('kill -9 of any process', () => {
  it('loses no run, doubles only runs in flight at a kill (with attempt >= 2), and records one success per run', {
    timeout: 420_000,
  }, async () => {
    const random = seededRandom('kill-takeover');
    const ids = await createTimers(e2e.cluster.api(), 50, { callback: { url: e2e.sink.url() } });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const kills: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      await sleep(5000 + random.next() * 5000);
      const victim = Math.floor(random.next() * e2e.cluster.size);
      kills.push(`p${victim}@${new Date().toISOString()}`);
      await e2e.cluster.kill(victim);
      await e2e.cluster.restart(victim);
    }
    const to = Math.floor(Date.now() / 1000) * 1000 - 1000;
    // Stalled jobs are taken over within ~15 s; allow for a restart and the overdue burst.
    const report = await settledDeliveryReport(e2e.sink, ids, from, to, 60_000, 1000);
    console.log(
      `kill-takeover: seed=${random.seed} kills=${kills.join(',')} expected=${report.expected} ` +
        `delivered=${report.delivered} missing=${report.missing.length} duplicates=${report.duplicates.length} ` +
        `unexplained=${report.unexplainedDuplicates.length}`,
    );
    expect(report.missing).toEqual([]);
    expect(report.unexplainedDuplicates).toEqual([]);

    // History: one row per run, each succeeded once. An outcome lost with a killed
    // process's write buffer is settled from its claim record by the compensator.
    const settled = await eventually(
      async () => {
        const counts = await statuses(from, to);
        return counts.succeeded === report.expected && counts;
      },
      'every run recorded succeeded',
      150_000,
      2000,
    ).catch(async () => statuses(from, to));
    expect(settled).toEqual({ succeeded: report.expected });
  });
});
