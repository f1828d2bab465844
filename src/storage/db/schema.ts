import { sql } from 'drizzle-orm';
import {
  bigint,
  char,
  customType,
  datetime,
  index,
  int,
  mediumtext,
  mysqlTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/mysql-core';

/**
 * MySQL is the source of truth. Times are DATETIME(3) in UTC: the pool pins
 * the session time zone to +00:00 and drizzle reads/writes them as UTC.
 */

/** Exact, case- and accent-sensitive text: app and timer names are identifiers, "Billing" ≠ "billing". */
const exactVarchar = (length: number) =>
  customType<{ data: string; driverData: string }>({
    dataType: () => `varchar(${length}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
  });

const createdAt = () =>
  datetime('created_at', { mode: 'date', fsp: 3 }).notNull().default(sql`CURRENT_TIMESTAMP(3)`);
// Set explicitly on every update: MySQL 8 rejects drizzle's onUpdateNow() at fsp 3.
const updatedAt = () =>
  datetime('updated_at', { mode: 'date', fsp: 3 })
    .notNull()
    .default(sql`CURRENT_TIMESTAMP(3)`)
    .$onUpdate(() => new Date());

export const timers = mysqlTable(
  'timers',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
    app: exactVarchar(64)('app').notNull(),
    name: exactVarchar(255)('name').notNull(),
    /** Null for a one-shot timer (`at`). */
    cron: varchar('cron', { length: 128 }),
    /** A one-shot timer's only instant (instead of a cron). */
    at: datetime('at', { mode: 'date', fsp: 3 }),
    /** An interval timer's period in ms (instead of a cron): runs at epoch + offset_ms + k·every_ms. */
    everyMs: bigint('every_ms', { mode: 'number' }),
    /** An interval timer's offset from the epoch in ms, in [0, every_ms); 0 for other timers. */
    offsetMs: bigint('offset_ms', { mode: 'number' }).notNull().default(0),
    /** Each run shifted by a stable offset in [0, jitter_ms) from its nominal instant; 0: none. */
    jitterMs: int('jitter_ms').notNull().default(0),
    /** The validity window: no run before `start_at` or at/after `end_at`; at most `max_runs` scheduled runs. */
    startAt: datetime('start_at', { mode: 'date', fsp: 3 }),
    endAt: datetime('end_at', { mode: 'date', fsp: 3 }),
    maxRuns: int('max_runs'),
    /** Scheduled runs planned so far (counted only while `max_runs` caps them). */
    runsPlanned: int('runs_planned').notNull().default(0),
    /** The last run the schedule will ever make, once planning has reached it: its settling completes the timer. */
    finalRunAt: datetime('final_run_at', { mode: 'date', fsp: 3 }),
    /** allow | skip | buffer_one: what a run does while the timer's previous run is still in flight. */
    overlapPolicy: varchar('overlap_policy', { length: 16 }).notNull().default('allow'),
    /** JSON {url, on: [outcomes]}: where a failed or missed run is reported; null: the app's default. */
    notify: text('notify'),
    /** JSON object of label key → value (at most 20); null: none. Filtered with JSON_CONTAINS. */
    labels: text('labels'),
    /** Free text for people (at most 1 KiB); null: none. */
    description: text('description'),
    /**
     * The cron as a Go xTimer client wrote it (cronexpr syntax; `cron` holds the native
     * form). Shown only by the compatible routes; null when set natively.
     */
    compatCron: varchar('compat_cron', { length: 128 }),
    timezone: varchar('timezone', { length: 64 }).notNull().default('UTC'),
    callbackUrl: varchar('callback_url', { length: 2048 }).notNull(),
    callbackMethod: varchar('callback_method', { length: 8 }).notNull().default('POST'),
    /** JSON object of header name → value, serialised by the repository (MariaDB has no JSON type). */
    callbackHeaders: text('callback_headers').notNull(),
    callbackBody: mediumtext('callback_body'),
    callbackTimeoutMs: int('callback_timeout_ms').notNull(),
    retryMaxAttempts: smallint('retry_max_attempts').notNull(),
    retryBackoffMs: int('retry_backoff_ms').notNull(),
    misfirePolicy: varchar('misfire_policy', { length: 16 }).notNull().default('fire_once'),
    misfireThresholdMs: int('misfire_threshold_ms').notNull().default(60_000),
    status: varchar('status', { length: 16 }).notNull().default('inactive'),
    /** Why the timer was disabled (the disable's note, or an auto-pause's); null: none. */
    pausedNote: varchar('paused_note', { length: 1024 }),
    pausedAt: datetime('paused_at', { mode: 'date', fsp: 3 }),
    /** When the disabled timer resumes by itself: the pause sweep's conditional UPDATE enables it once. */
    pausedUntil: datetime('paused_until', { mode: 'date', fsp: 3 }),
    /** Disable after this many failed runs in a row; null: never. */
    autoPauseAfter: int('auto_pause_after'),
    /** Failed runs in a row (counted only while auto_pause_after is set). */
    failureStreak: int('failure_streak').notNull().default(0),
    /** JSON array of the app's calendar names whose dates the timer skips; null: none. */
    skipCalendars: text('skip_calendars'),
    /**
     * JSON {date: [calendar names]}: those calendars' dates, copied here when the timer or a
     * calendar changes, so every schedule computation reads them from the timer's row alone.
     */
    skipDates: mediumtext('skip_dates'),
    /** Bumped on every change; caches and planners compare it. */
    version: int('version').notNull().default(1),
    /**
     * Runs exist up to here (exclusive). The migrator plans each active timer from this
     * point, so windows missed while the cluster was down are caught up.
     */
    plannedUntil: datetime('planned_until', { mode: 'date', fsp: 3 }),
    /**
     * When the current plan began (create, enable, or a schedule change while active): a
     * run of an older timer version due before it belongs to a superseded plan.
     */
    plannedFrom: datetime('planned_from', { mode: 'date', fsp: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('timers_app_name_uq').on(t.app, t.name),
    index('timers_app_id_idx').on(t.app, t.id),
    index('timers_status_id_idx').on(t.status, t.id),
    // The migrator's top-up finds, every minute, the few active timers whose runs stop
    // soon (migration 0008): a range on this index instead of a scan of all timers.
    index('timers_status_planned_idx').on(t.status, t.plannedUntil),
    // The pause sweep finds, every second, the disabled timers whose pause has run out.
    index('timers_status_paused_until_idx').on(t.status, t.pausedUntil),
  ],
);

/** A run's columns but its id: `tasks` and `task_failures` (copies of tasks rows) share them. */
function runColumns() {
  return {
    timerId: bigint('timer_id', { mode: 'number', unsigned: true }).notNull(),
    app: exactVarchar(64)('app').notNull(),
    runAt: datetime('run_at', { mode: 'date', fsp: 3 }).notNull(),
    /** The timer version the run was planned for (0: planned before versions were kept). */
    timerVersion: int('timer_version').notNull().default(0),
    status: varchar('status', { length: 16 }).notNull().default('pending'),
    /** What made the run: its schedule, a user's run now (`manual`), or a user's retry (`retry`). */
    trigger: varchar('run_trigger', { length: 16 }).notNull().default('schedule'),
    attempts: smallint('attempts').notNull().default(0),
    httpStatus: smallint('http_status'),
    output: text('output'),
    error: varchar('error', { length: 1024 }),
    /** When the latest attempt was sent. */
    firedAt: datetime('fired_at', { mode: 'date', fsp: 3 }),
    /** When the first attempt was sent: the run's lateness is measured from it. */
    firstFiredAt: datetime('first_fired_at', { mode: 'date', fsp: 3 }),
    durationMs: int('duration_ms'),
    /** While `running`: when the claim lapses and the compensator may re-enqueue the run. */
    leaseUntil: datetime('lease_until', { mode: 'date', fsp: 3 }),
    /**
     * JSON AnswerLog (src/domain/attempt-answers.ts): the latest answer's headers and body
     * size, and the earlier attempts' answers, bounded by ANSWER_LIMITS; null: none kept.
     * Mediumtext: JSON escaping can make the bounded text a few times its characters, and a
     * value too long for its column would fail the whole batch of outcomes.
     */
    answerLog: mediumtext('answer_log'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  };
}

/**
 * One row per scheduled run. RANGE-partitioned by day on `run_at` (migration 0009; the
 * partitioning itself is not drizzle's to express): every unique key includes `run_at`,
 * and history is purged by dropping a day's partition (src/storage/db/task-partitions.ts).
 */
export const tasks = mysqlTable(
  'tasks',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().notNull(),
    ...runColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.runAt] }),
    // The run's identity (timer and instant): generating it twice is a no-op.
    uniqueIndex('tasks_timer_run_uq').on(t.timerId, t.runAt),
    // Trigger fallback and compensator range-scan by status and time.
    index('tasks_status_run_idx').on(t.status, t.runAt),
  ],
);

/**
 * Failed and missed runs kept past TASK_RETENTION_DAYS, up to TASK_RETENTION_FAILED_DAYS:
 * copied out of a day's partition of `tasks` just before it is dropped.
 */
export const taskFailures = mysqlTable(
  'task_failures',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).notNull(),
    ...runColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.runAt] }),
    uniqueIndex('task_failures_timer_run_uq').on(t.timerId, t.runAt),
    index('task_failures_run_idx').on(t.runAt),
  ],
);

/**
 * Apps (docs/security.md): who may use the API for an app's timers, and how its
 * callbacks are signed. API keys are stored as SHA-256 digests; signing secrets are
 * sealed (AES-GCM, src/security/secret-box.ts) because the executor needs them back.
 * A rotation keeps the previous key or secret valid until its `*_until` time.
 */
export const apps = mysqlTable(
  'apps',
  {
    name: exactVarchar(64)('name').primaryKey(),
    keyHash: char('key_hash', { length: 64 }).notNull(),
    prevKeyHash: char('prev_key_hash', { length: 64 }),
    prevKeyUntil: datetime('prev_key_until', { mode: 'date', fsp: 3 }),
    signingSecret: varchar('signing_secret', { length: 255 }).notNull(),
    prevSigningSecret: varchar('prev_signing_secret', { length: 255 }),
    prevSigningSecretUntil: datetime('prev_signing_secret_until', { mode: 'date', fsp: 3 }),
    /** JSON {url, on}: the app's default failure notification for timers that set none. */
    notify: text('notify'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('apps_key_hash_uq').on(t.keyHash),
    uniqueIndex('apps_prev_key_hash_uq').on(t.prevKeyHash),
  ],
);

/** Calendars: named lists of dates an app's timers skip (`skipCalendars`). */
export const calendars = mysqlTable(
  'calendars',
  {
    app: exactVarchar(64)('app').notNull(),
    name: exactVarchar(64)('name').notNull(),
    /** JSON array of `YYYY-MM-DD`, sorted (at most 1,000). */
    dates: mediumtext('dates').notNull(),
    description: text('description'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.app, t.name] })],
);

/**
 * Backfills: a timer's schedule run over a past range `[from, to)`. Its runs
 * are rows of `tasks` with trigger `backfill`, written when it starts; the pacer sends
 * them in run order, `BACKFILL_RATE` a second, from `cursor_at` on.
 */
export const backfills = mysqlTable(
  'backfills',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
    timerId: bigint('timer_id', { mode: 'number', unsigned: true }).notNull(),
    app: exactVarchar(64)('app').notNull(),
    fromAt: datetime('from_at', { mode: 'date', fsp: 3 }).notNull(),
    toAt: datetime('to_at', { mode: 'date', fsp: 3 }).notNull(),
    /** The overlap policy its runs follow (null: the timer's). */
    overlapPolicy: varchar('overlap_policy', { length: 16 }),
    /** `sending` (queuing its runs), `sent` (all queued; waiting for their outcomes) or `ended`. */
    status: varchar('status', { length: 16 }).notNull(),
    /** Rounds of sending done: round 0 sends each run once; later rounds queue again runs lost meanwhile. */
    round: int('round').notNull().default(0),
    /** The schedule's instants in the range. */
    runs: int('runs').notNull(),
    /** Of those, the runs it made (the others were already in the run history). */
    planned: int('planned').notNull(),
    /** Runs queued so far. */
    sent: int('sent').notNull().default(0),
    /** The next run to queue is the first planned at or after this instant. */
    cursorAt: datetime('cursor_at', { mode: 'date', fsp: 3 }).notNull(),
    /** When the pacer last looked for runs it queued that never ended (lost with Redis). */
    checkedAt: datetime('checked_at', { mode: 'date', fsp: 3 }),
    /** When it was cancelled (its unsent runs removed), if it was. */
    cancelledAt: datetime('cancelled_at', { mode: 'date', fsp: 3 }),
    createdBy: varchar('created_by', { length: 128 }),
    /** Its runs are the `tasks` rows with trigger `backfill` in its range created in [created_at, runs_until]. */
    createdAt: createdAt(),
    runsUntil: datetime('runs_until', { mode: 'date', fsp: 3 }),
    updatedAt: updatedAt(),
  },
  (t) => [index('backfills_timer_idx').on(t.timerId, t.id), index('backfills_status_idx').on(t.status, t.id)],
);

/**
 * Timers changed in MySQL whose change has not yet reached Redis (their copy, the
 * announcement to every cache, their runs in the slices): written in the change's
 * transaction, cleared once it has. A row left behind (the process died in between) is
 * published again by a migrator. `token` tells one change's row from a later one's.
 */
export const planOutbox = mysqlTable('plan_outbox', {
  timerId: bigint('timer_id', { mode: 'number', unsigned: true }).primaryKey(),
  token: varchar('token', { length: 32 }).notNull(),
  markedAt: datetime('marked_at', { mode: 'date', fsp: 3 }).notNull(),
});

/**
 * The pause of the whole service (POST /api/v1/pause), one row while there is one:
 * scheduled runs are recorded skipped, not called. Redis holds a copy executors read.
 */
export const servicePause = mysqlTable('service_pause', {
  /** Always 1: there is one pause or none. */
  id: int('id').primaryKey(),
  note: varchar('note', { length: 1024 }).notNull(),
  pausedAt: datetime('paused_at', { mode: 'date', fsp: 3 }).notNull(),
  pausedBy: varchar('paused_by', { length: 128 }).notNull(),
});

/**
 * The audit log: one row per change made through the API or the dashboard, with who
 * made it (`admin`, `open`, or an app key's id), the fields it changed before and after
 * (JSON, credentials masked), and the batch it belongs to (an apply's id), if any.
 */
export const auditLog = mysqlTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
    at: datetime('at', { mode: 'date', fsp: 3 }).notNull().default(sql`CURRENT_TIMESTAMP(3)`),
    actor: varchar('actor', { length: 128 }).notNull(),
    action: varchar('action', { length: 32 }).notNull(),
    app: exactVarchar(64)('app').notNull(),
    /** The timer changed; null for changes to an app (key rotations). Kept after the timer is deleted. */
    timerId: bigint('timer_id', { mode: 'number', unsigned: true }),
    /** Correlates the entries of one batch of changes (an apply); null for a single change. */
    batchId: varchar('batch_id', { length: 64 }),
    before: mediumtext('before_json'),
    after: mediumtext('after_json'),
  },
  (t) => [
    index('audit_app_id_idx').on(t.app, t.id),
    index('audit_timer_id_idx').on(t.timerId, t.id),
    index('audit_batch_id_idx').on(t.batchId, t.id),
  ],
);

export type TimerRow = typeof timers.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type AppRow = typeof apps.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type CalendarRow = typeof calendars.$inferSelect;
export type BackfillRow = typeof backfills.$inferSelect;
