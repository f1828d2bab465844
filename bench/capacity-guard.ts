/**
 * npm run capacity-guard [-- --timers=3000 --seconds=20]
 *
 * The capacity guard CI runs after the tests: one xtimer process with N
 * every-second timers for S seconds, against the benchmark's sink. It fails on any
 * missing or doubled run — correctness under load, which a regression like the one that
 * re-queued every late run would break. Lateness is printed, never judged: timing
 * targets belong in `npm run bench`. On a box that cannot carry N, runs recorded
 * `missed` by their misfire policy are accounted for, as in the bench; missing are the
 * runs neither delivered nor recorded.
 */
import { accountedStats, Child, freePort, resetSink, sleep } from './harness.js';
import { startXtimer } from './targets.js';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const timers = arg('timers', 3000);
const seconds = arg('seconds', 20);
const SETTLE_MS = 5000;
/** How long runs passed over past capacity may take to be recorded (threshold, then a sweep). */
const RECORDED_WITHIN_MS = 180_000;

async function main(): Promise<number> {
  const sinkPort = await freePort();
  const sink = new Child('sink', 'bench/sink.ts', [String(sinkPort)]);
  await sink.waitFor('sink listening');
  try {
    await resetSink(sinkPort);
    process.stdout.write(`capacity guard: ${timers} every-second timers for ${seconds} s in one process\n`);
    const started = Date.now();
    const target = await startXtimer(timers, '* * * * * *', `http://127.0.0.1:${sinkPort}/guard`);
    process.stdout.write(`  timers created in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    try {
      const t0 = Math.ceil(Date.now() / 1000) * 1000 + SETTLE_MS;
      const t1 = t0 + seconds * 1000;
      await sleep(t1 - Date.now());
      // Late runs are the bench's business: wait for them until they stop coming.
      const expected = timers * seconds;
      const s = await accountedStats(sinkPort, target.database, t0, t1, expected, {
        quietMs: 10_000,
        capMs: 120_000,
        recordedWithinMs: RECORDED_WITHIN_MS,
      });
      const recorded = s.missedByPolicy;
      // Negative when a run was both delivered and recorded missed: wrong as well.
      const missing = expected - s.delivered - recorded;
      process.stdout.write(
        `  expected=${expected} delivered=${s.delivered} missed by policy=${recorded} missing=${missing} ` +
          `doubled=${s.duplicates} (lateness, for information: p50=${s.p50} ms p99=${s.p99} ms max=${s.max} ms)\n`,
      );
      if (missing !== 0 || s.duplicates !== 0) {
        process.stdout.write('capacity guard FAILED: runs were lost or doubled under load\n');
        return 1;
      }
      process.stdout.write('capacity guard passed: no run lost, none doubled\n');
      return 0;
    } finally {
      await target.stop();
    }
  } finally {
    await sink.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`capacity guard could not run: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
