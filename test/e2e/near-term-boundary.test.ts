import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * A create plans a dense timer's runs only for the near term (to the end of
 * the minute after next); the migrator's top-up plans the rest. An every-second timer
 * must fire every second across that boundary, from runs the create planned into runs
 * the migrator planned: none missing, none doubled. Real process, real clock, real sink
 * (about three minutes).
 */

const MINUTE = 60_000;
const e2e = useCluster('boundary');

async function plannedUntil(timerId: number): Promise<number> {
  const [rows] = await e2e.stores.database.pool.query('SELECT planned_until FROM timers WHERE id = ?', [
    timerId,
  ]);
  return (rows as Array<{ planned_until: Date }>)[0]!.planned_until.getTime();
}

describe('the boundary between near-term and migrator planning', () => {
  it('fires an every-second timer every second into the minutes the top-up planned, none missing or doubled', {
    timeout: 300_000,
  }, async () => {
    // Not in a minute's last seconds: the planned horizon is read before the top-up runs.
    await eventually(
      () => {
        const second = (Date.now() % MINUTE) / 1000;
        return second >= 3 && second <= 50;
      },
      'a second of the minute between 3 and 50',
      60_000,
      200,
    );

    const res = await fetch(`${e2e.base}/api/v1/timers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        app: 'boundary',
        name: 'every-second',
        cron: '* * * * * *',
        status: 'active',
        callback: { url: e2e.sink.url() },
      }),
    });
    expect(res.status).toBe(201);
    const timer = (await res.json()) as { id: number; createdAt: string };
    const createdAt = Date.parse(timer.createdAt);
    const nearEnd = Math.floor(createdAt / MINUTE) * MINUTE + 3 * MINUTE;
    // The create planned its near term only.
    expect(await plannedUntil(timer.id)).toBe(nearEnd);

    // Past the boundary by ten seconds: those runs exist only if the migrator planned them.
    const until = nearEnd + 10_000;
    await eventually(
      () => e2e.sink.forTimer(timer.id).some((d) => d.scheduledAt >= until),
      `deliveries up to ${new Date(until).toISOString()}`,
      until - Date.now() + 30_000,
      250,
    );
    expect(await plannedUntil(timer.id)).toBeGreaterThan(nearEnd + 50 * MINUTE);
    // The top-up plans it, or the migration when the wait crossed a window's first minute.
    const planners = e2e.proc.logs('top-up done').length + e2e.proc.logs('migration done').length;
    expect(planners).toBeGreaterThan(0);

    const first = Math.ceil(createdAt / 1000) * 1000 + 1000;
    const counts = new Map<number, number>();
    for (const d of e2e.sink.forTimer(timer.id))
      counts.set(d.scheduledAt, (counts.get(d.scheduledAt) ?? 0) + 1);
    const missing: number[] = [];
    for (let t = first; t <= until; t += 1000) if (!counts.has(t)) missing.push(t);
    const doubled = [...counts].filter(([, n]) => n > 1).map(([t]) => t);
    expect({ missing, doubled }).toEqual({ missing: [], doubled: [] });
    // The seconds on both sides of the boundary, for the record.
    expect(counts.get(nearEnd - 1000)).toBe(1);
    expect(counts.get(nearEnd)).toBe(1);
  });
});
