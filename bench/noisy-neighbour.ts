/**
 * Noisy neighbour: app `noisy` has every-second timers whose receiver never
 * answers (each call hangs until the callback timeout, then is retried), app `quiet` has
 * every-second timers on a receiver that answers at once. APP_MAX_IN_FLIGHT stays at its
 * default. The quiet app's runs must stay on time and all arrive; every owed run of the
 * noisy app must end `failed` or `missed` in MySQL, none called twice for one attempt.
 */
import { type Arrival, arrivalStats, sinkArrivals } from './arrivals.js';
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
import { createTimers, launchXtimer } from './targets.js';

const SETTLE_MS = 5000;
const LATE_ARRIVALS_MS = 5000;
/** How long the noisy app's owed runs may take to settle after the window (timeouts, retries, backlog). */
const SETTLE_DEADLINE_MS = 150_000;
const NOISY_TIMER = {
  retry: { maxAttempts: 3, backoffMs: 500 },
  // Runs kept waiting for one of the app's slots longer than this are recorded missed.
  misfireThresholdMs: 10_000,
};

export interface NoisyNeighbourResult {
  quiet: BenchLine;
  noisy: {
    timers: number;
    owed: number;
    /** MySQL's record of the owed runs once they settled (or at the deadline). */
    outcomes: TaskOutcomes;
    /** Owed runs not recorded failed or missed. */
    unsettled: number;
    /** Calls the hanging receiver got (every attempt), and runs called twice for one attempt. */
    calls: number;
    doubled: number;
    failed: boolean;
  };
}

export async function noisyNeighbour(
  noisyTimers: number,
  quietTimers: number,
  seconds: number,
  sink: SinkRef,
): Promise<NoisyNeighbourResult> {
  await resetSink(sink.port);
  const target = await launchXtimer();
  try {
    const cron = '* * * * * *';
    const noisyIds = await createTimers(target.base, noisyTimers, cron, `${sinkUrl(sink)}/hang`, 'active', {
      app: 'noisy',
      fields: NOISY_TIMER,
    });
    const quietIds = await createTimers(target.base, quietTimers, cron, `${sinkUrl(sink)}/quiet`, 'active', {
      app: 'quiet',
    });
    const t0 = Math.ceil(Date.now() / 1000) * 1000 + SETTLE_MS;
    const t1 = t0 + seconds * 1000;
    await sleep(t0 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    await sleep(LATE_ARRIVALS_MS);

    const arrivals = await sinkArrivals(sink.port, t0, t1);
    const quietStats = arrivalStats(of(arrivals, quietIds), false);
    const quiet = deliveryLine({
      scenario: '6: noisy neighbour: quiet',
      timers: quietTimers,
      seconds,
      expected: quietTimers * seconds,
      stats: quietStats,
      cpu: cpuUse,
      offTarget: offTarget({ [`p99 ≤ ${GOALS.quietAppP99Ms} ms`]: quietStats.p99 <= GOALS.quietAppP99Ms }),
    });
    printLine(quiet);

    const owed = noisyTimers * seconds;
    const [minId, maxId] = [Math.min(...noisyIds), Math.max(...noisyIds)];
    const outcomes = await settledOutcomes(
      () => taskOutcomes(target.database, t0, t1, minId, maxId),
      SETTLE_DEADLINE_MS,
    );
    // Calls made while the runs settled count too: a second call of one attempt is doubled whenever it comes.
    const noisyArrivals = of(await sinkArrivals(sink.port, t0, t1), noisyIds);
    const doubled = arrivalStats(noisyArrivals, true).doubled;
    const unsettled = owed - (outcomes.byStatus.failed ?? 0) - (outcomes.byStatus.missed ?? 0);
    const noisy = {
      timers: noisyTimers,
      owed,
      outcomes,
      unsettled,
      calls: noisyArrivals.reduce((n, a) => n + a.calls, 0),
      doubled,
      failed: unsettled !== 0 || doubled > 0,
    };
    process.stdout.write(
      `  6: noisy neighbour: noisy  timers=${String(noisyTimers).padStart(5)} owed=${owed} ` +
        `${JSON.stringify(outcomes.byStatus)} retried=${outcomes.retried} unsettled=${unsettled} ` +
        `calls=${noisy.calls} dup=${doubled}${noisy.failed ? ' FAILED' : ''}\n`,
    );
    return { quiet, noisy };
  } finally {
    await target.stop();
  }
}

const sinkUrl = (sink: SinkRef) => `http://127.0.0.1:${sink.port}`;

function of(arrivals: Arrival[], ids: number[]): Arrival[] {
  const set = new Set(ids);
  return arrivals.filter((a) => set.has(a.timerId));
}
