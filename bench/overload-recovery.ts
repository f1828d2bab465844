/**
 * Overload, then the operator's brake: more every-second timers than one all-roles
 * process can call on time, from a minute boundary on; after a while the operator
 * disables all but `keep` of them through the API, 32 clients at once, as during an
 * incident (with `drop: 'none'` the overload just goes on). Runs get late, never lost
 * or doubled: each owed run is delivered, or recorded missed by its misfire policy or
 * skipped by the disable, and none stays pending past its misfire threshold + 60 s.
 * Once the load drops the service must be on time again by itself.
 */
import mysql from 'mysql2/promise';
import { Agent, request } from 'undici';
import { type Arrival, arrivalStats, percentile, sinkArrivals } from './arrivals.js';
import { type BenchLine, deliveryLine, printLine } from './bench-line.js';
import { GOALS, offTarget } from './goals.js';
import { cpuMeterWithStores, MYSQL_SERVER, pool, resetSink, type SinkRef, sleep } from './harness.js';
import { createTimers, launchXtimer } from './targets.js';

/** How long creating the timers that drop out may take before their minute comes. */
const CREATE_LEAD_MS = 90_000;
const STEP_MS = 10_000;
const LATE_ARRIVALS_MS = 5000;
/** How long owed runs may stay pending or running after the end (a backlog draining). */
const SETTLE_DEADLINE_MS = 120_000;
/** Open rows a settle poll reads at most. */
const OPEN_POLL_ROWS = 2000;
/** The timers' misfire threshold (the default): no run may stay pending past it + 60 s. */
const MISFIRE_THRESHOLD_MS = 60_000;
const DISABLE_CLIENTS = 32;
/** How often the control probe sends each of its requests while the overload lasts. */
const PROBE_EVERY_MS = 500;

export interface OverloadRecoveryResult {
  line: BenchLine;
  timers: number;
  keep: number;
  drop: 'disable' | 'none';
  /** Every 10 s from the start: runs delivered and their p99 (by scheduled instant). */
  steps: Array<{ fromS: number; delivered: number; p99: number }>;
  /** The load dropped (the disables began) this long after the start. */
  dropAtS: number | null;
  /** The disables: how long all of them took, and each one's p50/p99. */
  disables: { count: number; ms: number; p50Ms: number; p99Ms: number } | null;
  /** The operator's other controls during the overload: each kind's p50/p99 (PATCH, enable, pause-app, console). */
  controls: Record<string, { count: number; p50Ms: number; p99Ms: number }>;
  /** From the drop until every later second's p99 < 500 ms (null: not within the run). */
  recoveredAfterMs: number | null;
  owed: number;
  delivered: number;
  missed: number;
  skipped: number;
  failed: number;
  unaccounted: number;
  /** Rows still pending or running longer than the misfire threshold + 60 s after their time. */
  pendingTooLong: number;
  /** Delivered runs whose outcome MySQL did not have at the end. */
  outcomesUnwritten: number;
}

export async function overloadRecovery(
  timers: number,
  keep: number,
  overloadSeconds: number,
  afterSeconds: number,
  sink: SinkRef,
  drop: 'disable' | 'none' = 'disable',
): Promise<OverloadRecoveryResult> {
  await resetSink(sink.port);
  // One process with every role: the disables go through the API of the saturated executor.
  const target = await launchXtimer();
  try {
    const sinkUrl = `http://127.0.0.1:${sink.port}/overload`;
    const kept = await createTimers(target.base, keep, '* * * * * *', sinkUrl, 'active');
    const probes = await createTimers(target.base, 2, '0 0 1 1 *', sinkUrl, 'active', {
      app: 'probe',
      namePrefix: 'probe',
    });
    // The others fire every second from a minute boundary on, so that the overload starts
    // at once rather than growing while they are created (past capacity, creating slows).
    const t0 = Math.ceil((Date.now() + CREATE_LEAD_MS) / 60_000) * 60_000;
    const dropped = await createTimers(target.base, timers - keep, '* * * * * *', sinkUrl, 'active', {
      namePrefix: 'd',
      fields: { startAt: new Date(t0).toISOString() },
    });
    if (Date.now() > t0) process.stdout.write('  7: overload: creating the timers ran into the overload\n');

    await sleep(t0 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    const tDrop = t0 + overloadSeconds * 1000;
    // An operator's other controls, from 10 s into the overload until the disables are done
    // (not through an overload that never ends: a steady stream of requests holds the
    // executor back, as it is meant to, and would measure that instead).
    const probing = drop === 'disable' ? controlProbe(target.base, probes, t0 + 10_000) : null;
    await sleep(tDrop - Date.now());
    // When each disable was sent and answered: runs due before it was sent are owed.
    const sentAt = new Map<number, number>();
    let disables: OverloadRecoveryResult['disables'] = null;
    if (drop === 'disable') {
      const latencies: number[] = [];
      const began = Date.now();
      const client = new Agent({ connections: DISABLE_CLIENTS });
      await pool(dropped, DISABLE_CLIENTS, async (id) => {
        const sent = Date.now();
        sentAt.set(id, sent);
        const res = await request(`${target.base}/api/v1/timers/${id}/disable`, {
          method: 'POST',
          dispatcher: client,
          headers: { 'content-type': 'application/json' },
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`disable ${id}: ${res.statusCode}`);
        latencies.push(Date.now() - sent);
      });
      await client.close();
      latencies.sort((a, b) => a - b);
      disables = {
        count: dropped.length,
        ms: Date.now() - began,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
      };
      process.stdout.write(
        `  7: overload: ${disables.count} disables from ${DISABLE_CLIENTS} clients took ${seconds1(disables.ms)} s ` +
          `(each: p50 ${disables.p50Ms} ms, p99 ${disables.p99Ms} ms)\n`,
      );
    }
    const controls = (await probing?.stop()) ?? {};
    for (const [kind, c] of Object.entries(controls))
      process.stdout.write(`  7: overload: ${c.count} × ${kind}: p50 ${c.p50Ms} ms, p99 ${c.p99Ms} ms\n`);
    const t1 = tDrop + afterSeconds * 1000;
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    await sleep(LATE_ARRIVALS_MS);

    const isDropped = new Set(dropped);
    // A run of a disabled timer is owed when due before its disable was sent.
    const owedUntil = (timerId: number) => (isDropped.has(timerId) ? (sentAt.get(timerId) ?? t1) : t1);
    const rows = await settledRows(target.database, t0, t1, owedUntil);
    const all = await sinkArrivals(sink.port, t0, t1);
    const arrived = new Map(all.map((a) => [`${a.timerId}_${a.scheduledAt}`, a]));
    const account = { owed: 0, delivered: 0, missed: 0, skipped: 0, failed: 0, unaccounted: 0, unwritten: 0 };
    const owedArrivals: Arrival[] = [];
    const unaccounted: string[] = [];
    for (const id of [...kept, ...dropped]) {
      for (let at = t0; at < Math.min(t1, owedUntil(id)); at += 1000) {
        account.owed++;
        const key = `${id}_${at}`;
        const a = arrived.get(key);
        const status = rows.get(key);
        if (a) {
          account.delivered++;
          owedArrivals.push(a);
          if (status === 'pending' || status === 'running' || status === undefined) account.unwritten++;
        } else if (status === 'missed') account.missed++;
        else if (status === 'skipped') account.skipped++;
        else if (status === 'failed') account.failed++;
        else {
          account.unaccounted++;
          if (unaccounted.length < 5)
            unaccounted.push(
              `${key} (${drop === 'disable' && isDropped.has(id) ? `disabled ${(owedUntil(id) - at) / 1000} s after it` : 'kept'}, ` +
                `due ${(t1 - at) / 1000} s before the end, ${status ?? 'no row'})`,
            );
        }
      }
    }
    const pendingTooLong = await pendingPast(target.database, Date.now() - MISFIRE_THRESHOLD_MS - 60_000);
    const seconds = (t1 - t0) / 1000;
    const stats = arrivalStats(owedArrivals, false);
    const steps = stepsOf(all, t0, t1);
    const recoveredAt = drop === 'disable' ? recoveredFrom(all, tDrop, t1, isDropped) : null;
    const recoveredAfterMs = recoveredAt === null ? null : recoveredAt - tDrop;
    for (const s of steps)
      process.stdout.write(
        `  7: overload  +${String(s.fromS).padStart(3)} s  delivered=${s.delivered} p99=${s.p99}ms\n`,
      );
    const line = deliveryLine({
      scenario: drop === 'disable' ? `7: overload ${timers} → ${keep}` : `7: overload ${timers}, no drop`,
      timers,
      seconds,
      expected: account.owed,
      missing: account.unaccounted,
      stats,
      cpu: cpuUse,
      offTarget: offTarget({
        ...(drop === 'disable'
          ? {
              [`p99 < ${GOALS.recoveredP99Ms} ms within ${GOALS.recoveryWithinMs / 1000} s of the drop`]:
                recoveredAfterMs !== null && recoveredAfterMs <= GOALS.recoveryWithinMs,
              [`${dropped.length} disables answered within ${GOALS.disablesWithinMs / 1000} s`]:
                (disables?.ms ?? 0) <= GOALS.disablesWithinMs,
              [`controls answered at p99 ≤ ${GOALS.controlP99Ms} ms`]: Object.values(controls).every(
                (c) => c.p99Ms <= GOALS.controlP99Ms,
              ),
            }
          : {}),
        'no run pending past its misfire threshold + 60 s': pendingTooLong === 0,
      }),
    });
    line.missedByPolicy = account.missed + account.skipped;
    printLine(line);
    process.stdout.write(
      `  7: overload: owed=${account.owed} delivered=${account.delivered} missed=${account.missed} ` +
        `skipped=${account.skipped} failed=${account.failed} unaccounted=${account.unaccounted}; ` +
        `pending past threshold + 60 s: ${pendingTooLong}; delivered but not yet recorded: ${account.unwritten}` +
        (drop === 'disable'
          ? `; p99 < ${GOALS.recoveredP99Ms} ms ${recoveredAfterMs === null ? 'not reached' : `${seconds1(recoveredAfterMs)} s after the drop`}`
          : '') +
        '\n',
    );
    if (unaccounted.length > 0)
      process.stdout.write(`  7: overload: unaccounted, e.g. ${unaccounted.join('; ')}\n`);
    return {
      line,
      timers,
      keep,
      drop,
      steps,
      dropAtS: drop === 'disable' ? overloadSeconds : null,
      disables,
      controls,
      recoveredAfterMs,
      owed: account.owed,
      delivered: account.delivered,
      missed: account.missed,
      skipped: account.skipped,
      failed: account.failed,
      unaccounted: account.unaccounted,
      pendingTooLong,
      outcomesUnwritten: account.unwritten,
    };
  } finally {
    await target.stop();
  }
}

/** UTC as the service writes DATETIME(3). */
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

/**
 * Every run's status in [from, to), once no owed run is pending or running any more (or
 * the settle deadline passed): task key → status.
 */
async function settledRows(
  database: string,
  from: number,
  to: number,
  owedUntil: (timerId: number) => number,
): Promise<Map<string, string>> {
  const conn = await mysql.createConnection(`${MYSQL_SERVER}/${database}`);
  try {
    // Polled through the status index for the oldest open rows alone: reading every row of
    // the window, or every open one (a million past capacity, a poll of minutes), would load
    // the MySQL the service settles them in.
    const deadline = Date.now() + SETTLE_DEADLINE_MS;
    for (;;) {
      const [open] = await conn.query(
        `SELECT timer_id, run_at FROM tasks FORCE INDEX (tasks_status_run_idx)
          WHERE status IN ('pending', 'running') AND run_at >= ? AND run_at < ? LIMIT ${OPEN_POLL_ROWS}`,
        [utc(from), utc(to)],
      );
      const openRows = open as Array<{ timer_id: number; run_at: Date }>;
      const owed = openRows.filter((r) => r.run_at.getTime() < owedUntil(Number(r.timer_id)));
      if ((owed.length === 0 && openRows.length < OPEN_POLL_ROWS) || Date.now() > deadline) break;
      await sleep(2000);
    }
    const [rows] = await conn.query(
      'SELECT timer_id, run_at, status FROM tasks WHERE run_at >= ? AND run_at < ?',
      [utc(from), utc(to)],
    );
    const statuses = new Map<string, string>();
    for (const r of rows as Array<{ timer_id: number; run_at: Date; status: string }>)
      statuses.set(`${r.timer_id}_${r.run_at.getTime()}`, r.status);
    return statuses;
  } finally {
    await conn.end();
  }
}

/** Rows pending or running that were due before `beforeMs`. */
async function pendingPast(database: string, beforeMs: number): Promise<number> {
  const conn = await mysql.createConnection(`${MYSQL_SERVER}/${database}`);
  try {
    const [rows] = await conn.query(
      "SELECT COUNT(*) AS n FROM tasks WHERE status IN ('pending', 'running') AND run_at < ?",
      [utc(beforeMs)],
    );
    return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
  } finally {
    await conn.end();
  }
}

function p99Of(arrivals: Arrival[]): number {
  return percentile(
    arrivals.map((a) => a.lateness).sort((x, y) => x - y),
    99,
  );
}

function stepsOf(arrivals: Arrival[], t0: number, t1: number): OverloadRecoveryResult['steps'] {
  const steps: OverloadRecoveryResult['steps'] = [];
  for (let from = t0; from < t1; from += STEP_MS) {
    const inStep = arrivals.filter((a) => a.scheduledAt >= from && a.scheduledAt < from + STEP_MS);
    steps.push({ fromS: (from - t0) / 1000, delivered: inStep.length, p99: p99Of(inStep) });
  }
  return steps;
}

const seconds1 = (ms: number) => (ms / 1000).toFixed(1);

/** The first instant from tDrop on from which every second's p99 (of the kept timers) stays under the goal. */
function recoveredFrom(arrivals: Arrival[], tDrop: number, t1: number, dropped: Set<number>): number | null {
  const perSecond = new Map<number, Arrival[]>();
  for (const a of arrivals) {
    if (a.scheduledAt < tDrop || dropped.has(a.timerId)) continue;
    const list = perSecond.get(a.scheduledAt) ?? [];
    list.push(a);
    perSecond.set(a.scheduledAt, list);
  }
  let recoveredAt: number | null = null;
  for (let s = tDrop; s < t1; s += 1000) {
    const list = perSecond.get(s) ?? [];
    if (list.length > 0 && p99Of(list) < GOALS.recoveredP99Ms) recoveredAt ??= s;
    else recoveredAt = null;
  }
  return recoveredAt;
}

/**
 * Sends an operator's controls in turn until stopped: a PATCH, a disable and enable, an
 * app's pause and resume, the console's timers page. The latencies of each kind.
 */
function controlProbe(
  base: string,
  [patched, toggled]: number[],
  from: number,
): { stop(): Promise<OverloadRecoveryResult['controls']> } {
  const client = new Agent({ connections: 4 });
  const took: Record<string, number[]> = {};
  const slow: string[] = [];
  let stopped = false;
  const send = async (kind: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => {
    const sent = Date.now();
    const res = await request(`${base}${path}`, {
      method,
      dispatcher: client,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${kind}: ${res.statusCode}`);
    const ms = Date.now() - sent;
    const kindTook = took[kind] ?? [];
    kindTook.push(ms);
    took[kind] = kindTook;
    if (ms > 1000) slow.push(`${kind} ${ms} ms at +${((sent - from) / 1000 + 10).toFixed(1)} s`);
  };
  const loop = (async () => {
    await sleep(from - Date.now());
    for (let n = 0; !stopped; n++) {
      const round = Date.now();
      await send('PATCH', 'PATCH', `/api/v1/timers/${patched}`, { labels: { round: String(n) } });
      await send('disable', 'POST', `/api/v1/timers/${toggled}/disable`);
      await send('enable', 'POST', `/api/v1/timers/${toggled}/enable`);
      await send('pause-app', 'POST', '/api/v1/apps/probe/pause', { note: 'probe' });
      await send('resume-app', 'POST', '/api/v1/apps/probe/resume');
      await send('console', 'GET', '/dashboard/timers');
      await sleep(round + PROBE_EVERY_MS - Date.now());
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await client.close();
      if (slow.length > 0) process.stdout.write(`  7: overload: controls over 1 s: ${slow.join(', ')}\n`);
      return Object.fromEntries(
        Object.entries(took).map(([kind, ms]) => {
          ms.sort((a, b) => a - b);
          return [kind, { count: ms.length, p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99) }];
        }),
      );
    },
  };
}
