/**
 * Overload, then recovery (issue 12): more every-second timers than one process can call
 * on time, for a while; then all but `keep` of them are disabled. Runs get late while
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

const SETTLE_MS = 5000;
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
  /** From the first disable until every later second's p99 < 500 ms (null: not within the run). */
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
    const ids = await createTimers(
      target.base,
      timers,
      '* * * * * *',
      `http://127.0.0.1:${sink.port}/overload`,
      'active',
    );
    const sorted = [...ids].sort((a, b) => a - b);
    const lastKept = sorted[keep - 1]!;
    const dropped = sorted.slice(keep);

    const t0 = Math.ceil(Date.now() / 1000) * 1000 + SETTLE_MS;
    // Runs due before tDrop are owed by every timer; the disables start half a second before it.
    const tDrop = t0 + overloadSeconds * 1000;
    const t1 = tDrop + afterSeconds * 1000;
    await sleep(t0 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    await sleep(tDrop - 500 - Date.now());
    const dropStart = Date.now();
    await disableTimers(target.base, dropped);
    const dropTookMs = Date.now() - dropStart;
    process.stdout.write(`  7: overload: ${dropped.length} timers disabled in ${dropTookMs} ms\n`);
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    await sleep(LATE_ARRIVALS_MS);

    const outcomes = await settledOutcomes(async () => {
      const kept = await taskOutcomes(target.database, t0, t1, sorted[0]!, lastKept);
      return merge(kept, await taskOutcomes(target.database, t0, tDrop, lastKept + 1, sorted.at(-1)!));
    }, SETTLE_DEADLINE_MS);
    const all = await sinkArrivals(sink.port, t0, t1);
    const owedArrivals = all.filter((a) => a.timerId <= lastKept || a.scheduledAt < tDrop);
    const owed = keep * (overloadSeconds + afterSeconds) + dropped.length * overloadSeconds;
    const stats = arrivalStats(owedArrivals, false);
    const steps = stepsOf(all, t0, t1);
    const recoveredAfterMs = recoveredAfter(all, tDrop, t1, dropStart);
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
      seconds: overloadSeconds + afterSeconds,
      expected: owed,
      missing: unaccounted,
      stats,
      cpu: cpuUse,
      offTarget: offTarget({
        [`p99 < ${GOALS.recoveredP99Ms} ms within ${GOALS.recoveryWithinMs / 1000} s of the drop`]:
          recoveredAfterMs !== null && recoveredAfterMs <= GOALS.recoveryWithinMs,
      }),
    });
    printLine(line);
    process.stdout.write(
      `  7: overload: owed=${owed} delivered=${stats.delivered} MySQL ${JSON.stringify(outcomes.byStatus)} ` +
        `unaccounted=${unaccounted}; p99 < ${GOALS.recoveredP99Ms} ms ` +
        `${recoveredAfterMs === null ? 'not reached' : `${(recoveredAfterMs / 1000).toFixed(1)} s after the first disable`}\n`,
    );
    return {
      line,
      timers,
      keep,
      steps,
      dropAtS: (dropStart - t0) / 1000,
      dropTookMs,
      recoveredAfterMs,
      owed,
      delivered: stats.delivered,
      outcomes,
    };
  } finally {
    await target.stop();
  }
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

/** The first instant from which every second's p99 stays under the goal, as time since `dropStart`. */
function recoveredAfter(arrivals: Arrival[], tDrop: number, t1: number, dropStart: number): number | null {
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
  return recoveredAt === null ? null : Math.max(0, recoveredAt - dropStart);
}
