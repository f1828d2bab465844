/**
 * The runs the sink was called for (bench/sink.ts GET /_arrivals) and what a set of them
 * shows: lateness of the call start (first request arrival − X-Xtimer-Scheduled-At),
 * runs missing against those owed, and runs called twice.
 */

export interface Arrival {
  timerId: number;
  scheduledAt: number;
  /** First request arrival − scheduled instant, in ms. */
  lateness: number;
  /** Requests the sink got for the run, every attempt included. */
  calls: number;
  /** Distinct attempt numbers among them. */
  attempts: number;
}

export interface ArrivalStats {
  delivered: number;
  /** Runs called more than once for one attempt (more than once at all, where the timers never retry). */
  doubled: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const bitCount = (n: number) => n.toString(2).replaceAll('0', '').length;

/** Runs scheduled in [from, to) that the sink was called for. */
export async function sinkArrivals(sinkPort: number, from: number, to: number): Promise<Arrival[]> {
  const res = await fetch(`http://127.0.0.1:${sinkPort}/_arrivals?from=${from}&to=${to}`);
  const out: Arrival[] = [];
  for (const line of (await res.text()).split('\n')) {
    if (!line) continue;
    const [key = '', scheduledAt, arrivedAt, calls, attemptBits] = line.split(' ');
    out.push({
      timerId: Number(key.split('_')[0]),
      scheduledAt: Number(scheduledAt),
      lateness: Number(arrivedAt) - Number(scheduledAt),
      calls: Number(calls),
      attempts: bitCount(Number(attemptBits)),
    });
  }
  return out;
}

export function arrivalStats(arrivals: Arrival[], retries: boolean): ArrivalStats {
  const lateness = arrivals.map((a) => a.lateness).sort((a, b) => a - b);
  return {
    delivered: arrivals.length,
    doubled: arrivals.filter((a) => a.calls > (retries ? a.attempts : 1)).length,
    p50: percentile(lateness, 50),
    p90: percentile(lateness, 90),
    p99: percentile(lateness, 99),
    max: lateness.at(-1) ?? Number.NaN,
  };
}
