/** Timers and their runs as the rest of the code sees them (SPEC §3). */

export const TIMER_STATUSES = ['inactive', 'active'] as const;
export type TimerStatus = (typeof TIMER_STATUSES)[number];

export const MISFIRE_POLICIES = ['fire_once', 'fire_all', 'skip'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const TASK_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'missed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Limits every entry point enforces. */
export const LIMITS = {
  appPattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
  nameMaxChars: 255,
  urlMaxChars: 2048,
  headersMax: 64,
  /** Callback header names and values together (each is visible ASCII or Latin-1: a byte a character). */
  headersMaxBytes: 8192,
  callbackBodyMaxBytes: 64 * 1024,
  timeoutMs: { min: 100, max: 300_000 },
  maxAttempts: { min: 1, max: 20 },
  backoffMs: { min: 0, max: 3_600_000 },
  misfireThresholdMs: { min: 0, max: 86_400_000 },
  outputMaxChars: 1024,
  errorMaxChars: 1024,
} as const;

export interface Callback {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
}

export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: number;
}

export interface Timer {
  id: number;
  app: string;
  name: string;
  cron: string;
  timezone: string;
  callback: Callback;
  retry: RetryPolicy;
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
  status: TimerStatus;
  /**
   * The cron as a client of the Go xTimer wrote it (gorhill/cronexpr syntax), which only
   * the compatible routes show; `cron` holds the native form that fires the same way.
   * Null (or absent) when the cron was set through the native API.
   */
  compatCron?: string | null;
  /** Bumped on every change; each run carries the version it was planned for. */
  version: number;
  /** When the current plan began (ms); runs of older versions due before it are superseded. */
  plannedFrom: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a caller supplies to create a timer (defaults already applied). */
export type TimerDraft = Omit<Timer, 'id' | 'version' | 'plannedFrom' | 'createdAt' | 'updatedAt'>;

/** Fields a PATCH may change; callback and retry are merged field by field. */
export interface TimerPatch {
  name?: string | undefined;
  cron?: string | undefined;
  /** With `cron`, from the compatible routes; a cron patched without it clears the compat form. */
  compatCron?: string | null | undefined;
  timezone?: string | undefined;
  callback?: { [K in keyof Callback]?: Callback[K] | undefined } | undefined;
  retry?: { [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined } | undefined;
  misfirePolicy?: MisfirePolicy | undefined;
  misfireThresholdMs?: number | undefined;
}

export interface Task {
  /** The row id (the xtimer-compatible API shows it); the run's identity is the task key. */
  rowId: number;
  timerId: number;
  app: string;
  runAt: number;
  status: TaskStatus;
  attempts: number;
  httpStatus: number | null;
  output: string | null;
  error: string | null;
  firedAt: number | null;
  durationMs: number | null;
}

/** A callback that can be sent as configured, or why not. */
export function callbackProblem(cb: Pick<Callback, 'method' | 'body'>): string | null {
  if ((cb.method === 'GET' || cb.method === 'HEAD') && cb.body !== null && cb.body !== '') {
    return `a ${cb.method} callback cannot carry a body`;
  }
  return null;
}

/** Does a patch change when the timer fires? Then its future runs are re-planned. */
export function changesSchedule(patch: TimerPatch): boolean {
  return patch.cron !== undefined || patch.timezone !== undefined;
}
