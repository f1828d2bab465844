/** Timers and their runs as the rest of the code sees them. */

import type { AnswerLog } from './attempt-answers.js';
import type { SkipDates } from './schedule/calendar.js';
import { hasHashes } from './schedule/hashed-cron.js';

export const TIMER_STATUSES = ['inactive', 'active', 'completed'] as const;
export type TimerStatus = (typeof TIMER_STATUSES)[number];
/** The statuses a user sets; `completed` is reached by a timer whose schedule has run out. */
export const USER_TIMER_STATUSES = ['inactive', 'active'] as const;

/** What a run does while the previous run of its timer is still in flight (retries included). */
export const OVERLAP_POLICIES = ['allow', 'skip', 'buffer_one'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** What made a run: its schedule, a user's run now, a user's retry of a failed or missed run, or a backfill. */
export const RUN_TRIGGERS = ['schedule', 'manual', 'retry', 'backfill'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** The final outcomes a failure notification can report. */
export const NOTIFY_OUTCOMES = ['failed', 'missed'] as const;
export type NotifyOutcome = (typeof NOTIFY_OUTCOMES)[number];

/** Where a timer's (or an app's) failed and missed runs are reported. */
export interface Notify {
  url: string;
  on: NotifyOutcome[];
}

/** A stored notify column (JSON text: MariaDB has no JSON type of its own). */
export const parseNotify = (text: string | null): Notify | null =>
  text === null ? null : (JSON.parse(text) as Notify);

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
  labelsMax: 20,
  /** A label key: a letter or digit, then letters, digits, `.`, `_`, `/` or `-`; 63 characters at most. */
  labelKeyPattern: /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/,
  labelValueMaxChars: 255,
  descriptionMaxBytes: 1024,
  /** An interval timer's `every`: at least a second, at most a year. */
  everyMs: { min: 1000, max: 366 * 86_400_000 },
} as const;

/** Disables a timer after this many runs in a row end `failed`. */
export interface AutoPause {
  afterConsecutiveFailures: number;
}

/** The note an auto-pause leaves. */
export const autoPauseNote = (n: number) => `auto-paused after ${n} consecutive failures`;

/** Labels a timer carries for people to find it by (`label=key:value` filters). */
export type Labels = Record<string, string>;

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
  /** Null for a one-shot timer (`at`) or an interval timer (`everyMs`). */
  cron: string | null;
  /** A one-shot timer's only instant (ms). */
  at: number | null;
  /** An interval timer's period (ms): runs at epoch + offsetMs + k·everyMs, in real time. */
  everyMs: number | null;
  /** An interval timer's offset from the epoch (ms), in [0, everyMs); 0 for other timers. */
  offsetMs: number;
  /**
   * Each run of a cron or interval timer is shifted by a stable offset in [0, jitterMs)
   * from its nominal instant (0: none). At most an hour and the schedule's shortest gap.
   */
  jitterMs: number;
  timezone: string;
  callback: Callback;
  retry: RetryPolicy;
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
  /** The validity window: no run before startAt or at/after endAt (ms), at most maxRuns scheduled runs. */
  startAt: number | null;
  endAt: number | null;
  maxRuns: number | null;
  overlapPolicy: OverlapPolicy;
  /** Where failed and missed runs are reported; null: the app's default. */
  notify: Notify | null;
  labels: Labels;
  /** Free text for people; null: none. */
  description: string | null;
  status: TimerStatus;
  /** Why the timer was disabled (a note given with the disable, or an auto-pause's); null: none. */
  pausedNote: string | null;
  /** When it was disabled (ms); null while active. */
  pausedAt: number | null;
  /** When it resumes by itself (ms); null: it stays disabled until enabled. */
  pausedUntil: number | null;
  /** Disable the timer after this many failed runs in a row; null: never. */
  autoPause: AutoPause | null;
  /** Runs in a row that ended failed (kept only while autoPause is set). */
  failureStreak: number;
  /** The app's calendars whose dates the timer skips (no run is planned on them). */
  skipCalendars: string[];
  /** Those calendars' dates, each with the calendars listing it (copied from them on every change). */
  skipDates: SkipDates;
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
  /** Scheduled runs planned so far (kept while maxRuns caps them). */
  runsPlanned: number;
  /** The last run the schedule will make, once planning has reached it; its settling completes the timer. */
  finalRunAt: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a caller supplies to create a timer (defaults already applied). */
export type TimerDraft = Omit<
  Timer,
  | 'id'
  | 'version'
  | 'plannedFrom'
  | 'runsPlanned'
  | 'finalRunAt'
  | 'createdAt'
  | 'updatedAt'
  | 'pausedNote'
  | 'pausedAt'
  | 'pausedUntil'
  | 'failureStreak'
>;

/** Why and until when a disable pauses the timer. */
export interface PauseRequest {
  note?: string | null | undefined;
  /** ms; absent or null: until enabled. */
  until?: number | null | undefined;
}

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
  at?: number | undefined;
  /** Makes the timer an interval timer (clears cron and at). */
  everyMs?: number | undefined;
  offsetMs?: number | undefined;
  jitterMs?: number | undefined;
  startAt?: number | null | undefined;
  endAt?: number | null | undefined;
  maxRuns?: number | null | undefined;
  overlapPolicy?: OverlapPolicy | undefined;
  notify?: Notify | null | undefined;
  autoPause?: AutoPause | null | undefined;
  /** Replaces the list whole; the service fills skipDates from it. */
  skipCalendars?: string[] | undefined;
  skipDates?: SkipDates | undefined;
  /** Replaces the labels whole. */
  labels?: Labels | undefined;
  description?: string | null | undefined;
}

export interface Task {
  /** The row id (the xtimer-compatible API shows it); the run's identity is the task key. */
  rowId: number;
  timerId: number;
  app: string;
  runAt: number;
  status: TaskStatus;
  trigger: RunTrigger;
  attempts: number;
  httpStatus: number | null;
  output: string | null;
  error: string | null;
  /** When the latest attempt was sent. */
  firedAt: number | null;
  /** When the first attempt was sent: the run's lateness. */
  firstFiredAt: number | null;
  durationMs: number | null;
  /** When the row was written: for a backfill's run, when the backfill began. */
  queuedAt: number | null;
  /** The answers beyond the row's columns (response headers, earlier attempts); null: none kept. */
  answers?: AnswerLog | null | undefined;
}

/**
 * How late the run's first call left (ms); null if it was never called, or if it is a
 * backfill's (its instant is past by design: its delay is no lateness).
 */
export function latenessOf(t: Pick<Task, 'runAt' | 'firedAt' | 'firstFiredAt' | 'trigger'>): number | null {
  const first = t.firstFiredAt ?? t.firedAt;
  return first === null || t.trigger === 'backfill' ? null : first - t.runAt;
}

/** How long after its backfill began a backfill's run was first called (ms); null for any other run, or one never called. */
export function sinceBackfillStartOf(
  t: Pick<Task, 'firedAt' | 'firstFiredAt' | 'trigger' | 'queuedAt'>,
): number | null {
  const first = t.firstFiredAt ?? t.firedAt;
  return first === null || t.trigger !== 'backfill' || t.queuedAt === null
    ? null
    : Math.max(0, first - t.queuedAt);
}

/** A callback that can be sent as configured, or why not. */
export function callbackProblem(cb: Pick<Callback, 'method' | 'body'>): string | null {
  if ((cb.method === 'GET' || cb.method === 'HEAD') && cb.body !== null && cb.body !== '') {
    return `a ${cb.method} callback cannot carry a body`;
  }
  return null;
}

/**
 * Whether `patch` moves `current`'s runs: `changesSchedule`, or a rename of a timer whose
 * cron has H fields, which are seeded by its app and name (hashSeed).
 */
export function movesRuns(current: Pick<Timer, 'name' | 'cron'>, patch: TimerPatch): boolean {
  if (changesSchedule(patch)) return true;
  const cron = patch.cron ?? current.cron;
  return patch.name !== undefined && patch.name !== current.name && cron !== null && hasHashes(cron);
}

export function changesSchedule(patch: TimerPatch): boolean {
  return (
    patch.cron !== undefined ||
    patch.timezone !== undefined ||
    patch.at !== undefined ||
    patch.everyMs !== undefined ||
    patch.offsetMs !== undefined ||
    patch.jitterMs !== undefined ||
    patch.skipCalendars !== undefined ||
    patch.skipDates !== undefined ||
    patch.startAt !== undefined ||
    patch.endAt !== undefined ||
    patch.maxRuns !== undefined
  );
}
