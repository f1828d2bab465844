/**
 * A timer's definition as the chaos checker reads it, taken from the API's answer, and
 * the instants it fires at. Worked out here rather than by xtimer's own schedule code, so
 * that a bug there cannot hide itself; this is why the chaos run only creates schedules
 * whose instants are plain arithmetic: every N seconds (cron `*\/N * * * * *` with N
 * dividing 60, or `every`), and one-shots.
 */
export interface TimerDef {
  app: string;
  name: string;
  active: boolean;
  /** Recurring: runs at offsetMs + k·periodMs (epoch ms); null for a one-shot. */
  periodMs: number | null;
  offsetMs: number;
  /** A one-shot's instant. */
  atMs: number | null;
  startAtMs: number | null;
  /** No run at or after this. */
  endAtMs: number | null;
  /** The callback URL's path: the sink logs it, so a call shows which definition sent it. */
  path: string;
  timeoutMs: number;
  maxAttempts: number;
  misfirePolicy: string;
  misfireThresholdMs: number;
  overlapPolicy: string;
}

/** The fields of a timer as GET /api/v1/timers/{id} answers them that the checker reads. */
export interface TimerJson {
  app: string;
  name: string;
  status: string;
  cron: string | null;
  every: string | null;
  offset: string | null;
  at: string | null;
  startAt: string | null;
  endAt: string | null;
  jitterMs?: number;
  callback: { url: string; timeoutMs?: number | null };
  retry: { maxAttempts: number };
  misfirePolicy: string;
  misfireThresholdMs: number;
  overlapPolicy: string;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `2s`, `1m30s`, `0s` (how the API shows an interval) in ms. */
export function durationMs(text: string): number {
  let total = 0;
  let rest = text;
  while (rest.length > 0) {
    const m = /^(\d+)(ms|s|m|h|d)/.exec(rest);
    if (!m) throw new Error(`unsupported duration ${JSON.stringify(text)}`);
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** The period of a seconds cron the chaos run uses: `* * * * * *` or `*\/N * * * * *`. */
export function cronPeriodMs(cron: string): number {
  const m = /^\*(?:\/(\d+))? \* \* \* \* \*$/.exec(cron);
  const n = m ? Number(m[1] ?? 1) : Number.NaN;
  if (!m || n < 1 || 60 % n !== 0) throw new Error(`unsupported cron ${JSON.stringify(cron)}`);
  return n * 1000;
}

const msOf = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

export function defOf(t: TimerJson, defaultTimeoutMs = 5000): TimerDef {
  if (t.jitterMs) throw new Error(`timer ${t.name}: jitter is not supported by the checker`);
  let periodMs: number | null = null;
  let offsetMs = 0;
  if (t.cron !== null) periodMs = cronPeriodMs(t.cron);
  else if (t.every !== null) {
    periodMs = durationMs(t.every);
    offsetMs = t.offset === null ? 0 : durationMs(t.offset);
  } else if (t.at === null) throw new Error(`timer ${t.name}: no cron, every or at`);
  return {
    app: t.app,
    name: t.name,
    active: t.status === 'active',
    periodMs,
    offsetMs,
    atMs: msOf(t.at),
    startAtMs: msOf(t.startAt),
    endAtMs: msOf(t.endAt),
    path: new URL(t.callback.url).pathname,
    timeoutMs: t.callback.timeoutMs ?? defaultTimeoutMs,
    maxAttempts: t.retry.maxAttempts,
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: t.misfireThresholdMs,
    overlapPolicy: t.overlapPolicy,
  };
}

/** Whether `t` is one of the definition's instants (whether it is active aside). */
export function onSchedule(def: TimerDef, t: number): boolean {
  if (def.startAtMs !== null && t < def.startAtMs) return false;
  if (def.endAtMs !== null && t >= def.endAtMs) return false;
  if (def.atMs !== null) return t === def.atMs;
  if (def.periodMs === null) return false;
  return (((t - def.offsetMs) % def.periodMs) + def.periodMs) % def.periodMs === 0;
}

/** The definition's instants in [from, to). */
export function instantsBetween(def: TimerDef, from: number, to: number): number[] {
  if (def.atMs !== null)
    return onSchedule(def, def.atMs) && def.atMs >= from && def.atMs < to ? [def.atMs] : [];
  if (def.periodMs === null) return [];
  const out: number[] = [];
  const p = def.periodMs;
  let t = Math.ceil((from - def.offsetMs) / p) * p + def.offsetMs;
  for (; t < to; t += p) if (onSchedule(def, t)) out.push(t);
  return out;
}
