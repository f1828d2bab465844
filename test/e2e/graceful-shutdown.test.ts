import { describe, expect, it } from 'vitest';
import { createTimers, deliveryReport, settledRun, sleep, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * SIGTERM during load: the process stops taking work, lets in-flight callbacks finish,
 * hands back what it had not started, and exits 0; the other process fires what was
 * handed back, so nothing is lost or doubled. A call in flight is never cut short: the
 * process waits for it (up to SHUTDOWN_GRACE_MS), unless a second signal says not to.
 */
const e2e = useCluster('sigterm', { size: 2 });

describe('SIGTERM during load', () => {
  it('exits 0 within 10 s and loses or doubles nothing', { timeout: 120_000 }, async () => {
    // Slow callbacks, so some are in flight when the signal lands.
    e2e.sink.respond = () => ({ status: 200, body: 'ok', delayMs: 800 });
    const ids = await createTimers(e2e.cluster.api(), 30, { callback: { url: e2e.sink.url() } });
    const from = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    // The signal lands 2.5 s into a minute, at least 8 s after the creates: while the top-up
    // that follows each minute's start plans these timers' next hour (~100,000 runs), on
    // whichever process took the minute's lock.
    const minute = 60_000;
    await sleep(Math.ceil((Date.now() + 8000) / minute) * minute + 2500 - Date.now());

    const victim = e2e.cluster.procs[0]!;
    const signalledAt = Date.now();
    const exited = await Promise.race([victim.stop('SIGTERM'), sleep(10_000).then(() => null)]);
    const exitMs = Date.now() - signalledAt;
    if (exited === null)
      console.log(`graceful-shutdown: still running; its log:\n${victim.output.slice(-8000)}`);
    expect(exited).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(10_000);
    expect(victim.output).toContain('"shut down"');
    const topUpStopped = /top-up(-further)? stopped part-way/.test(victim.output);

    await sleep(10_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;
    await eventually(
      () => deliveryReport(e2e.sink, ids, from, to).missing.length === 0,
      'every run delivered',
      20_000,
    ).catch(() => undefined);
    const report = deliveryReport(e2e.sink, ids, from, to);
    console.log(
      `graceful-shutdown: exit in ${exitMs} ms (top-up stopped: ${topUpStopped}); expected=${report.expected} ` +
        `delivered=${report.delivered} missing=${report.missing.length} duplicates=${report.duplicates.length}`,
    );
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
  });
});

describe('SIGTERM during a long call', () => {
  const long = useCluster('sigtermlong', { respond: () => ({ status: 200, body: 'ok', delayMs: 20_000 }) });

  async function oneShotInFlight(): Promise<string> {
    const [id] = await createTimers(long.cluster.api(), 1, {
      cron: undefined,
      at: new Date(Date.now() + 2000).toISOString(),
      callback: { url: long.sink.url(), timeoutMs: 30_000 },
    });
    await eventually(() => long.sink.forTimer(id!).length === 1, 'the call arrived', 20_000);
    return long.sink.forTimer(id!)[0]!.taskId;
  }

  it('waits for the call, exits 0, and the run is not called again', { timeout: 120_000 }, async () => {
    const taskId = await oneShotInFlight();
    await sleep(1000);
    const signalledAt = Date.now();
    const exit = await long.proc.stop('SIGTERM');
    const exitMs = Date.now() - signalledAt;
    expect(exit).toEqual({ code: 0, signal: null });
    // The receiver answers 20 s after the call arrived: the process waited for it.
    expect(exitMs).toBeGreaterThan(17_000);
    expect(long.proc.output).toContain('waiting for the calls in flight to end');

    await long.cluster.restart(0);
    const run = await settledRun(long.cluster.api(), taskId, 30_000);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 1 });
    // Past the lease, a stalled-job check and a compensator pass: nobody calls it again.
    await sleep(35_000);
    expect(long.sink.deliveries.filter((d) => d.taskId === taskId)).toHaveLength(1);
  });

  it('exits 1 at a second signal, saying what it abandons', { timeout: 60_000 }, async () => {
    await oneShotInFlight();
    const proc = long.proc;
    proc.child.kill('SIGTERM');
    await eventually(() => proc.output.includes('waiting for the calls in flight to end'), 'waiting', 10_000);
    const signalledAt = Date.now();
    const exit = await proc.stop('SIGTERM');
    expect(exit).toEqual({ code: 1, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5000);
    const [said] = proc.logs('second signal: exiting without waiting for the rest of the shutdown');
    expect(said).toMatchObject({ abandoned: { executor: { callsInFlight: 1, outcomesLost: 0 } } });
  });
});
