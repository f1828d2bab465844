import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createTimers, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * A timer change committed in MySQL reaches Redis even when the process that made it dies
 * right after the commit: its outbox mark is left behind, and a migrator publishes the
 * change again (the timer's copy executors fire by, the announcement, the runs in the slices).
 */
const e2e = useCluster('planrepair');

/** Commits `patch` of timer `id` in a process of its own, which is killed before it publishes. */
async function commitThenDie(id: number, patch: unknown): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/commit-then-die.ts', String(id), JSON.stringify(patch)],
    { env: { ...process.env, ...e2e.stores.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c));
  child.stderr.on('data', (c: Buffer) => (output += c));
  const exit = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_, signal) => r(signal)));
  expect(exit, output).toBe('SIGKILL');
  expect(output).toContain('committed');
}

describe('a change whose process died between its commit and its publish', () => {
  it('reaches Redis: the new schedule and callback fire within seconds', { timeout: 90_000 }, async () => {
    const [id] = await createTimers(e2e.cluster.api(), 1, {
      cron: '*/5 * * * * *',
      callback: { url: e2e.sink.url('/before') },
    });
    await eventually(() => e2e.sink.forTimer(id!).length >= 1, 'the timer fires', 20_000);

    await commitThenDie(id!, { cron: '* * * * * *', callback: { url: e2e.sink.url('/after') } });
    const committedAt = Date.now();

    // Within the repair's delay and a pass: every second, to the new URL.
    await eventually(
      () => e2e.sink.forTimer(id!).filter((d) => d.path === '/after').length >= 5,
      'runs of the new plan at the new URL',
      45_000,
      200,
    );
    const after = e2e.sink.forTimer(id!).filter((d) => d.path === '/after');
    expect(after[0]!.arrivedAt - committedAt).toBeLessThan(30_000);
    expect(e2e.cluster.procs[0]!.output).toContain(
      'timer changes published again after their publisher failed',
    );
    const [rows] = await e2e.stores.database.pool.query('SELECT COUNT(*) AS n FROM plan_outbox');
    expect(rows).toEqual([{ n: 0 }]);
  });
});
