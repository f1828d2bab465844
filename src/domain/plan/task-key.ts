/** The run's identity everywhere: `${timerId}_${runAtMs}`. */
export function taskKey(timerId: number, runAtMs: number): string {
  return `${timerId}_${runAtMs}`;
}

export function parseTaskKey(key: string): { timerId: number; runAt: number } | null {
  const m = /^(\d{1,15})_(\d{1,15})$/.exec(key);
  if (!m) return null;
  return { timerId: Number(m[1]), runAt: Number(m[2]) };
}

/**
 * A run as a slice ZSET member: its task key and the timer version it was planned for
 * (`${timerId}_${runAtMs}_${version}`), so a run of a superseded plan can be told apart.
 */
export function sliceMember(timerId: number, runAtMs: number, version: number): string {
  return `${timerId}_${runAtMs}_${version}`;
}

export function parseSliceMember(member: string): { timerId: number; runAt: number; version: number } | null {
  const m = /^(\d{1,15})_(\d{1,15})(?:_(\d{1,10}))?$/.exec(member);
  if (!m) return null;
  return { timerId: Number(m[1]), runAt: Number(m[2]), version: m[3] === undefined ? 0 : Number(m[3]) };
}
