/** The run's identity everywhere (SPEC §3): `${timerId}_${runAtMs}`. */
export function taskKey(timerId: number, runAtMs: number): string {
  return `${timerId}_${runAtMs}`;
}

export function parseTaskKey(key: string): { timerId: number; runAt: number } | null {
  const m = /^(\d{1,15})_(\d{1,15})$/.exec(key);
  if (!m) return null;
  return { timerId: Number(m[1]), runAt: Number(m[2]) };
}
