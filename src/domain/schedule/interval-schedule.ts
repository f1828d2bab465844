/**
 * Interval schedules (`every` with an `offset`): runs at epoch + offset + k·every in real
 * time, for every whole k. No zone and no DST: every node computes the same instants
 * from the two numbers alone, so the task key `${timerId}_${runAtMs}` stays stable.
 */

export interface IntervalSpec {
  everyMs: number;
  /** In [0, everyMs). */
  offsetMs: number;
}

/** The first instant of the interval at or after `ms`. */
export function intervalAtOrAfter(spec: IntervalSpec, ms: number): number {
  const k = Math.ceil((ms - spec.offsetMs) / spec.everyMs);
  return spec.offsetMs + k * spec.everyMs;
}

/** The interval's instants in [startMs, endMs), ascending. */
export function intervalRuns(spec: IntervalSpec, startMs: number, endMs: number): number[] {
  const out: number[] = [];
  for (let t = intervalAtOrAfter(spec, startMs); t < endMs; t += spec.everyMs) out.push(t);
  return out;
}

/** The next `count` instants strictly after `afterMs`, before `endMs`. */
export function intervalNext(spec: IntervalSpec, afterMs: number, count: number, endMs = Infinity): number[] {
  const out: number[] = [];
  for (let t = intervalAtOrAfter(spec, afterMs + 1); t < endMs && out.length < count; t += spec.everyMs) {
    out.push(t);
  }
  return out;
}
