/** The run's identity everywhere: `${timerId}_${runAtMs}`. */
export function taskKey(timerId: number, runAtMs: number): string {
  return `${timerId}_${runAtMs}`;
}

export function parseTaskKey(key: string): { timerId: number; runAt: number } | null {
  const m = /^(\d{1,15})_(\d{1,15})$/.exec(key);
  if (!m) return null;
  return { timerId: Number(m[1]), runAt: Number(m[2]) };
}

/** A run in a slice: which timer, when, and the timer version it was planned for (0: unknown). */
export interface SliceRun {
  timerId: number;
  runAt: number;
  version: number;
}

/**
 * How a run sits in its minute's slice ZSET. Compact: scored by its ms within the minute,
 * member `${timerId}.${ms}.${version}` in base 36, ~12 bytes a run in Redis's compact
 * encoding (a cron's second-0 run scores 0). Long, as releases before it wrote: scored by
 * its epoch ms, member `${timerId}_${runAtMs}_${version}`, ~35 bytes. The two never share
 * a score range (a minute is 60,000 ms; an epoch ms is past 10^12), and both are read.
 */
export interface SliceEntry {
  member: string;
  score: number;
}

export function sliceEntry(run: SliceRun, minuteStartMs: number, long = false): SliceEntry {
  if (long) return { member: `${run.timerId}_${run.runAt}_${run.version}`, score: run.runAt };
  const ms = run.runAt - minuteStartMs;
  return { member: `${run.timerId.toString(36)}.${ms.toString(36)}.${run.version.toString(36)}`, score: ms };
}

/** The run a slice member stands for, or null for one this release cannot read. */
export function parseSliceEntry(member: string, minuteStartMs: number): SliceRun | null {
  const compact = /^([0-9a-z]{1,11})\.([0-9a-z]{1,4})\.([0-9a-z]{1,7})$/.exec(member);
  if (compact) {
    return {
      timerId: Number.parseInt(compact[1]!, 36),
      runAt: minuteStartMs + Number.parseInt(compact[2]!, 36),
      version: Number.parseInt(compact[3]!, 36),
    };
  }
  const long = /^(\d{1,15})_(\d{1,15})(?:_(\d{1,10}))?$/.exec(member);
  if (!long) return null;
  return {
    timerId: Number(long[1]),
    runAt: Number(long[2]),
    version: long[3] === undefined ? 0 : Number(long[3]),
  };
}
