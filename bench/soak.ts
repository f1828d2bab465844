/**
 * A long xtimer run at one rate, reported every 10 s: past the minutes planned when the
 * timers were created, into those the migrator planned (their bucket count is sized for
 * the whole load, so their slices and batches differ).
 */
import { resetSink, type SinkStats, sinkStats, sleep } from './harness.js';
import { startXtimer } from './targets.js';

export interface SoakResult {
  timers: number;
  seconds: number;
  expected: number;
  delivered: number;
  duplicates: number;
  p50: number;
  p99: number;
  max: number;
  /** Each 10 s: from (ISO), delivered, p50, p99, max. */
  slices: Array<Pick<SinkStats, 'delivered' | 'p50' | 'p99' | 'max'> & { from: string }>;
}

const STEP_MS = 10_000;

export async function soak(timers: number, seconds: number, sinkPort: number): Promise<SoakResult> {
  await resetSink(sinkPort);
  const target = await startXtimer(timers, '* * * * * *', `http://127.0.0.1:${sinkPort}/soak`);
  try {
    const t0 = Math.ceil(Date.now() / 1000) * 1000 + 5000;
    const t1 = t0 + seconds * 1000;
    const slices: SoakResult['slices'] = [];
    for (let from = t0; from < t1; from += STEP_MS) {
      const to = Math.min(from + STEP_MS, t1);
      await sleep(to + 2000 - Date.now());
      const s = await sinkStats(sinkPort, from, to);
      const fromIso = new Date(from).toISOString();
      slices.push({ from: fromIso, delivered: s.delivered, p50: s.p50, p99: s.p99, max: s.max });
      process.stdout.write(
        `  soak ${fromIso.slice(11, 19)}  delivered=${s.delivered}/${(timers * (to - from)) / 1000} p50=${s.p50}ms p99=${s.p99}ms max=${s.max}ms\n`,
      );
    }
    await sleep(3000);
    const all = await sinkStats(sinkPort, t0, t1);
    return {
      timers,
      seconds,
      expected: timers * seconds,
      delivered: all.delivered,
      duplicates: all.duplicates,
      p50: all.p50,
      p99: all.p99,
      max: all.max,
      slices,
    };
  } finally {
    await target.stop();
  }
}
