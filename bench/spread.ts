/**
 * Spread: the same load, aligned or spread over the minute. N timers written
 * `0 * * * * *` all fire at second 0 of every minute; N written `H * * * * *` each fire at
 * their own hashed second; N `0 * * * * *` with `jitterMs: 59000` each at a stable shift
 * of their nominal second 0. The receiver takes 100 ms a call, so the peak of calls open
 * at once shows the capacity each needs; lateness is arrival − X-Xtimer-Scheduled-At
 * (the shifted instant).
 */
import { type BenchLine, deliveryLine, printLine } from './bench-line.js';
import { cpuMeterWithStores, resetSink, type SinkRef, settledStats, sleep } from './harness.js';
import { createTimers, launchXtimer } from './targets.js';

const MINUTE = 60_000;
const SETTLE_MS = 10_000;
/** How long the receiver takes to answer each call. */
const RECEIVER_MS = 100;

export interface SpreadLine {
  line: BenchLine;
  /** The most calls open at the receiver at once. */
  peakInFlight: number;
}

export interface SpreadResult {
  aligned: SpreadLine;
  hashed: SpreadLine;
  jittered: SpreadLine;
}

const VARIANTS = {
  aligned: { cron: '0 * * * * *', fields: {} },
  hashed: { cron: 'H * * * * *', fields: {} },
  jittered: { cron: '0 * * * * *', fields: { jitterMs: 59_000 } },
} as const;

/** `timers` of each variant, one variant at a time, each measured over `minutes` whole minutes. */
export async function spreadBench(timers: number, minutes: number, sink: SinkRef): Promise<SpreadResult> {
  const out: Partial<SpreadResult> = {};
  for (const [name, variant] of Object.entries(VARIANTS) as Array<
    [keyof SpreadResult, (typeof VARIANTS)[keyof typeof VARIANTS]]
  >) {
    out[name] = await measureVariant(name, variant.cron, variant.fields, timers, minutes, sink);
  }
  return out as SpreadResult;
}

async function measureVariant(
  name: string,
  cron: string,
  fields: Record<string, unknown>,
  timers: number,
  minutes: number,
  sink: SinkRef,
): Promise<SpreadLine> {
  await resetSink(sink.port);
  const target = await launchXtimer();
  try {
    await createTimers(
      target.base,
      timers,
      cron,
      `http://127.0.0.1:${sink.port}/slow/${RECEIVER_MS}`,
      'active',
      {
        namePrefix: `spread-${name}-`,
        fields,
      },
    );
    // Whole minutes, after the first plans have settled: each window holds every timer's run once a minute.
    const t0 = Math.ceil((Date.now() + SETTLE_MS) / MINUTE) * MINUTE;
    const t1 = t0 + minutes * MINUTE;
    await sleep(t0 - Date.now() - 500);
    await fetch(`http://127.0.0.1:${sink.port}/_inflight?reset=1`);
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    const { peak } = (await (await fetch(`http://127.0.0.1:${sink.port}/_inflight`)).json()) as {
      peak: number;
    };
    const expected = timers * minutes;
    const s = await settledStats(sink.port, t0, t1, expected, { quietMs: 10_000, capMs: 120_000 });
    const line = deliveryLine({
      scenario: `spread: ${name}`,
      timers,
      seconds: minutes * 60,
      expected,
      stats: { ...s, doubled: s.duplicates },
      cpu: cpuUse,
      offTarget: [],
    });
    printLine(line);
    process.stdout.write(`    ${`spread: ${name}`.padEnd(22)} peak in-flight calls=${peak}\n`);
    return { line, peakInFlight: peak };
  } finally {
    await target.stop();
  }
}
