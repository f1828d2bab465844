/**
 * Slow receivers: every-second timers whose receiver takes 2 s to answer, so
 * two calls per timer are open at any moment. What counts is the call start: the
 * request's arrival at the sink − X-Xtimer-Scheduled-At, while earlier calls still hang
 * on. Every run once, none twice. A floor line first: the bare undici sender making the same
 * calls to the same slow sink, so the lateness the box, the client and a sink holding 2,000
 * open calls cost by themselves stands beside xtimer's.
 */
import { arrivalStats, sinkArrivals } from './arrivals.js';
import { type BenchLine, deliveryLine, printLine } from './bench-line.js';
import { GOALS, offTarget } from './goals.js';
import { cpuMeterWithStores, resetSink, type SinkRef, sleep } from './harness.js';
import { startFloor, startXtimer, type Target } from './targets.js';

const ANSWER_MS = 2000;
const SETTLE_MS = 5000;
const LATE_ARRIVALS_MS = 5000;

/** The floor line, then xtimer's. */
export async function slowReceivers(timers: number, seconds: number, sink: SinkRef): Promise<BenchLine[]> {
  const url = `http://127.0.0.1:${sink.port}/slow/${ANSWER_MS}`;
  const floor = await slowLine('floor', () => startFloor(timers, url), timers, seconds, sink);
  const xtimer = await slowLine(
    'xtimer',
    () => startXtimer(timers, '* * * * * *', url),
    timers,
    seconds,
    sink,
  );
  return [floor, xtimer];
}

async function slowLine(
  system: 'floor' | 'xtimer',
  start: () => Promise<Target>,
  timers: number,
  seconds: number,
  sink: SinkRef,
): Promise<BenchLine> {
  await resetSink(sink.port);
  const target = await start();
  try {
    const t0 = Math.ceil(Date.now() / 1000) * 1000 + SETTLE_MS;
    const t1 = t0 + seconds * 1000;
    await sleep(t0 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    await sleep(LATE_ARRIVALS_MS);
    const stats = arrivalStats(await sinkArrivals(sink.port, t0, t1), false);
    const line = deliveryLine({
      scenario: '5: slow receivers (2 s)',
      system,
      timers,
      seconds,
      expected: timers * seconds,
      stats,
      cpu: cpuUse,
      offTarget:
        system === 'floor'
          ? []
          : offTarget({
              [`p99 ≤ ${GOALS.slowReceiversP99Ms} ms`]: stats.p99 <= GOALS.slowReceiversP99Ms,
            }),
    });
    printLine(line);
    return line;
  } finally {
    await target.stop();
  }
}
