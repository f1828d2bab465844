/**
 * Overload, then recovery (issue 12): more every-second timers than one process can call
 * on time, from a minute boundary on, for a while; then all but `keep` of them (those
 * that fire every second throughout) are disabled. Runs get late while
 * overloaded, never lost or doubled: each owed run is delivered, or recorded `missed` by
 * its misfire policy (or `skipped`: its timer was disabled before its late call went
 * out). Once the load drops the service must be on time again by itself. The API runs in
 * a process of its own: the creates and disables must not wait on the overloaded executor.
 */
import { type Arrival, arrivalStats, percentile, sinkArrivals } from './arrivals.js';
import { type BenchLine, deliveryLine, printLine } from './bench-line.js';
import { GOALS, offTarget } from './goals.js';
import {
  cpuMeterWithStores,
  resetSink,
  type SinkRef,
  settledOutcomes,
  sleep,
  type TaskOutcomes,
  taskOutcomes,
} from './harness.js';
import { createTimers, disableTimers, launchXtimer } from './targets.js';

/** How long creating the timers that drop out may take before their minute comes. */
const CREATE_LEAD_MS = 90_000;
/** Minutes their cron keeps firing after the overload, in case the disables take long. */
const SPARE_MINUTES = 4;
const STEP_MS = 10_000;
const LATE_ARRIVALS_MS = 5000;
/** How long owed runs may stay pending or running after the end (a backlog draining). */
const SETTLE_DEADLINE_MS = 120_000;

export interface OverloadRecoveryResult {
  line: BenchLine;
  timers: number;
  keep: number;
  /** Every 10 s from the start: runs delivered and their p99 (by scheduled instant). */
  steps: Array<{ fromS: number; delivered: number; p99: number }>;
  /** The disables began this long after the start, and took this long. */
  dropAtS: number;
  dropTookMs: number;
  /** From the last disable until every later second's p99 < 500 ms (null: not within the run). */
  recoveredAfterMs: number | null;
  owed: number;
  delivered: number;
  outcomes: TaskOutcomes;
}

export async function overloadRecovery(
  timers: number,
  keep: number,
  overloadSeconds: number,
  afterSeconds: number,
  sink: SinkRef,
): Promise<OverloadRecoveryResult> {
  await resetSink(sink.port);
  const target = await launchXtimer({ split: true });
  try {
    const sinkUrl = `http://127.0.0.1:${sink.port}/overload`;
    const kept = await createTimers(target.base, keep, '* * * * * *', sinkUrl, 'active');
    // The others fire every second from a minute boundary on, so that the overload starts
    // at once rather than growing while they are created (past capacity, creating slows).
    const t0 = Math.ceil((Date.now() + CREATE_LEAD_MS) / 60_000) * 60_000;
    const dropped = await createTimers(
      target.base,
      timers - keep,
      `* ${minutesFrom(t0, overloadSeconds)} * * * *`,
      sinkUrl,
      'active',
      { namePrefix: 'd' },
    );
    if (Date.now() > t0) process.stdout.write('  7: overload: creating the timers ran into the overload\n');
    const [firstKept, lastKept] = [Math.min(...kept), Math.max(...kept)];
    const [firstDropped, lastDropped] = [Math.min(...dropped), Math.max(...dropped)];

    // Runs due before tDrop are owed by every timer; the disables start half a second before it.
    const tDrop = t0 + overloadSeconds * 1000;
    await sleep(t0 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    await sleep(tDrop - 500 - Date.now());
    const dropStart = Date.now();
    await disableTimers(target.base, dropped);
    const dropEnd = Date.now();
    process.stdout.write(`  7: overload: ${dropped.length} timers disabled in ${dropEnd - dropStart} ms\n`);
    // The load is back to `keep` timers once the last disable answered: watch from there.
    const t1 = Math.ceil(dropEnd / 1000) * 1000 + afterSeconds * 1000;
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    await sleep(LATE_ARRIVALS_MS);

    const outcomes = await settledOutcomes(async () => {
      const ofKept = await taskOutcomes(target.database, t0, t1, firstKept, lastKept);
      return merge(ofKept, await taskOutcomes(target.database, t0, tDrop, firstDropped, lastDropped));
    }, SETTLE_DEADLINE_MS);
    const all = await sinkArrivals(sink.port, t0, t1);
    const owedArrivals = all.filter((a) => a.timerId <= lastKept || a.scheduledAt < tDrop);
    const seconds = (t1 - t0) / 1000;
    const owed = keep * seconds + dropped.length * overloadSeconds;
    const stats = arrivalStats(owedArrivals, false);
    const steps = stepsOf(all, t0, t1);
    const recoveredAt = recoveredFrom(all, tDrop, t1);
    const recoveredAfterMs = recoveredAt === null ? null : Math.max(0, recoveredAt - dropEnd);
    for (const s of steps)
      process.stdout.write(
        `  7: overload  +${String(s.fromS).padStart(3)} s  delivered=${s.delivered} p99=${s.p99}ms\n`,
      );
    // A run recorded failed counts as delivered only if its call reached the sink.
    const unaccounted =
      owed - stats.delivered - (outcomes.byStatus.missed ?? 0) - (outcomes.byStatus.skipped ?? 0);
    const line = deliveryLine({
      scenario: `7: overload ${timers} → ${keep}`,
      timers,
      seconds,
      expected: owed,
      missing: unaccounted,
      stats,
      cpu: cpuUse,
      offTarget: offTarget({
        [`p99 < ${GOALS.recoveredP99Ms} ms within ${GOALS.recoveryWithinMs / 1000} s of the last disable`]:
          recoveredAfterMs !== null && recoveredAfterMs <= GOALS.recoveryWithinMs,
      }),
    });
    printLine(line);
    process.stdout.write(
      `  7: overload: owed=${owed} delivered=${stats.delivered} MySQL ${JSON.stringify(outcomes.byStatus)} ` +
        `unaccounted=${unaccounted}; p99 < ${GOALS.recoveredP99Ms} ms ` +
        `${recoveredAt === null ? 'not reached' : `${seconds1(recoveredAt - dropStart)} s after the first disable, ${seconds1(recoveredAfterMs ?? 0)} s after the last`}\n`,
    );
    return {
      line,
      timers,
      keep,
      steps,
      dropAtS: (dropStart - t0) / 1000,
      dropTookMs: dropEnd - dropStart,
      recoveredAfterMs,
      owed,
      delivered: stats.delivered,
      outcomes,
    };
  } finally {
    await target.stop();
  }
}

/** The minutes of the hour (a cron's minute field) from t0's for the overload and the spare ones. */
function minutesFrom(t0: number, overloadSeconds: number): string {
  const first = new Date(t0).getUTCMinutes();
  const count = Math.min(60, Math.ceil(overloadSeconds / 60) + SPARE_MINUTES);
  return Array.from({ length: count }, (_, i) => (first + i) % 60).join(',');
}

function merge(a: TaskOutcomes, b: TaskOutcomes): TaskOutcomes {
  const byStatus = { ...a.byStatus };
  for (const [status, n] of Object.entries(b.byStatus)) byStatus[status] = (byStatus[status] ?? 0) + n;
  return { byStatus, retried: a.retried + b.retried };
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

/** The first instant from tDrop on from which every second's p99 stays under the goal. */
function recoveredFrom(arrivals: Arrival[], tDrop: number, t1: number): number | null {
  const perSecond = new Map<number, Arrival[]>();
  for (const a of arrivals) {
    if (a.scheduledAt < tDrop) continue;
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
