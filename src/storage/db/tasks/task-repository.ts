import { and, asc, desc, eq, gt, gte, inArray, lt, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { union } from 'drizzle-orm/mysql-core';
import type { Pool } from 'mysql2/promise';
import { taskKey } from '../../../domain/plan/task-key.js';
import type { RunTrigger, Task, TaskStatus } from '../../../domain/timer.js';
import { type Db, isDeadlock } from '../client.js';
import { sqlDateTime } from '../multi-row-insert.js';
import { taskFailures, tasks } from '../schema.js';
import { type OverdueCursor, type OverduePage, overduePage } from './overdue-page.js';
import {
  literal,
  NOT_BACKFILL,
  type OverdueRun,
  type PendingRow,
  type PendingRun,
  type PlannedRun,
  type RunOutcome,
  type RunState,
  type RunTable,
  runKeys,
  type StuckRun,
  type TaskListQuery,
  TERMINAL,
  toPendingRun,
  toTask,
} from './task-rows.js';

export type { OverdueCursor, OverduePage } from './overdue-page.js';
export type {
  OverdueRun,
  PendingRun,
  PlannedRun,
  RunOutcome,
  RunState,
  StuckRun,
  TaskListQuery,
} from './task-rows.js';

/**
 * For reads of runs by status and run time. With millions of runs planned ahead, MariaDB
 * took the index by status alone (ref, its run_at bound a mere filter) and walked every
 * pending run of the horizon to find the few overdue ones: the compensator's page read,
 * 0 rows, ran for minutes instead of 0.2 s.
 */
const BY_STATUS_AND_TIME = 'FORCE INDEX (tasks_status_run_idx)';
/**
 * For writes to runs named by their keys, `(timer_id, run_at) IN (…)`. Beside `status =
 * 'pending'` MariaDB took the status index and read every pending run at each named
 * instant: with 6,000 timers sharing their seconds, a 5,000-run UPDATE read 1.8 million
 * index entries for two minutes, instead of 5,000 rows in 0.1 s.
 */
const BY_RUN_KEY = 'FORCE INDEX (tasks_timer_run_uq)';
const INSERT_BATCH = 2000;
const UPDATE_BATCH = 1000;
/** Rows one statement settles uncalled (a sweep's page): one value each, so many more than UPDATE_BATCH fit. */
const SETTLE_BATCH = 20_000;
/** How long the late sweep waits for a page of overdue runs. */
const SWEEP_READ_TIMEOUT_MS = 120_000;
/** The outcome UPDATE's derived table's columns, in the order each row gives them. */
const OUTCOME_COLUMNS = [
  'timer_id',
  'run_at',
  'status',
  'attempts',
  'http_status',
  'output',
  'error',
  'fired_at',
  'duration_ms',
  'lease_until',
  'answer_log',
];
/** Per pool: whether its server is MariaDB, which reads `VALUES (…), (…)` as rows. */
const valueRowsOf = new WeakMap<object, Promise<boolean>>();
/** Tries of a statement that deadlocked. */
const DEADLOCK_TRIES = 5;

/** Whether the pool's server takes MariaDB's table value constructor; asked once per pool. */
function speaksValueRows(pool: Pick<Pool, 'query'>): Promise<boolean> {
  let known = valueRowsOf.get(pool);
  if (!known) {
    known = pool.query('SELECT VERSION() AS v').then(
      ([rows]) => /mariadb/i.test(String((rows as Array<{ v: unknown }>)[0]?.v)),
      () => {
        // Asked again next time: the statement after this fails as the question did.
        valueRowsOf.delete(pool);
        return false;
      },
    );
    valueRowsOf.set(pool, known);
  }
  return known;
}

/** Runs (one row per scheduled instant) in MySQL. `db` and `pool` may be a transaction's. */
export class TaskRepository {
  constructor(
    private readonly db: Db,
    private readonly pool: Pick<Pool, 'query' | 'escape'>,
    /** A transaction's: a deadlock rolls it back whole, so its caller retries, not a statement here. */
    private readonly inTransaction = false,
  ) {}

  withDb(db: Db, pool: Pick<Pool, 'query' | 'escape'>): TaskRepository {
    return new TaskRepository(db, pool, true);
  }

  /**
   * Newest first, keyset-paginated on run_at (unique per timer). The failed and missed
   * runs kept past TASK_RETENTION_DAYS (task_failures) are read too: UNION, not UNION
   * ALL, so a run copied there a moment before its day is dropped shows once. Each part
   * is ordered and limited itself: MariaDB does not take the outer LIMIT into a UNION's
   * parts, which then read all of the timer's runs (an hour of an every-second timer's
   * for each of the console's timers) to keep a page.
   */
  async listForTimer(q: TaskListQuery): Promise<Task[]> {
    const where = (t: RunTable) =>
      and(
        eq(t.timerId, q.timerId),
        q.statuses && q.statuses.length > 0 ? inArray(t.status, [...q.statuses]) : undefined,
        q.fromMs === undefined ? undefined : gte(t.runAt, new Date(q.fromMs)),
        q.toMs === undefined ? undefined : lt(t.runAt, new Date(q.toMs)),
        q.beforeMs === undefined ? undefined : lt(t.runAt, new Date(q.beforeMs)),
        q.afterMs === undefined ? undefined : gt(t.runAt, new Date(q.afterMs)),
      );
    const upTo = q.limit + (q.offset ?? 0);
    const order = q.ascending ? asc : desc;
    const rows = await union(
      this.db.select().from(tasks).where(where(tasks)).orderBy(order(tasks.runAt)).limit(upTo),
      this.db
        .select()
        .from(taskFailures)
        .where(where(taskFailures))
        .orderBy(order(taskFailures.runAt))
        .limit(upTo),
    )
      .orderBy(q.ascending ? sql`run_at asc` : sql`run_at desc`)
      .limit(q.limit)
      .offset(q.offset ?? 0);
    return rows.map(toTask);
  }

  /**
   * Runs of every timer in one status, newest first, optionally of one app: the index on
   * (status, run_at) gives them in order. Keyset-paginated on (run_at, id). Failed and
   * missed runs kept past TASK_RETENTION_DAYS are read too (see listForTimer).
   */
  async listByStatus(q: {
    status: TaskStatus;
    app?: string | undefined;
    before?: { runAt: number; id: number } | undefined;
    limit: number;
  }): Promise<Task[]> {
    const where = (t: RunTable) =>
      and(
        eq(t.status, q.status),
        q.app === undefined ? undefined : eq(t.app, q.app),
        q.before === undefined
          ? undefined
          : or(
              lt(t.runAt, new Date(q.before.runAt)),
              and(eq(t.runAt, new Date(q.before.runAt)), lt(t.id, q.before.id)),
            ),
      );
    const rows = await union(
      this.db
        .select()
        .from(tasks)
        .where(where(tasks))
        .orderBy(desc(tasks.runAt), desc(tasks.id))
        .limit(q.limit),
      this.db
        .select()
        .from(taskFailures)
        .where(where(taskFailures))
        .orderBy(desc(taskFailures.runAt), desc(taskFailures.id))
        .limit(q.limit),
    )
      .orderBy(sql`run_at desc, id desc`)
      .limit(q.limit);
    return rows.map(toTask);
  }

  async find(timerId: number, runAt: number): Promise<Task | null> {
    const rows = await this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.timerId, timerId), eq(tasks.runAt, new Date(runAt))));
    return rows[0] ? toTask(rows[0]) : null;
  }

  /** A run as the history shows it: its row, or the failure kept past TASK_RETENTION_DAYS. */
  async findInHistory(timerId: number, runAt: number): Promise<Task | null> {
    const live = await this.find(timerId, runAt);
    if (live) return live;
    const rows = await this.db
      .select()
      .from(taskFailures)
      .where(and(eq(taskFailures.timerId, timerId), eq(taskFailures.runAt, new Date(runAt))));
    return rows[0] ? toTask(rows[0]) : null;
  }

  /**
   * Materialises runs, idempotently: a run that exists already is left as it is and
   * never aborts the batch. Raw multi-row SQL: this is the migrator's hot path, and
   * a multi-row insert is ~30x faster than one statement per row. `parallel` statements
   * run at once (on the pool; a transaction's connection takes them in turn).
   *
   * Rows go in in run-time order, so a second's runs share a few pages, which their
   * outcomes update together. In timer order each second's outcomes touched a page per
   * timer: at 5,000 timers more pages than a 128 MiB buffer pool holds, and the outcome
   * UPDATE cost MySQL twice the CPU.
   */
  async insertRuns(runs: readonly PlannedRun[], parallel = 1): Promise<void> {
    const ordered = [...runs].sort((a, b) => a.runAt - b.runAt || a.timerId - b.timerId);
    const statements: string[] = [];
    for (let i = 0; i < ordered.length; i += INSERT_BATCH) {
      const values: string[] = [];
      const end = Math.min(ordered.length, i + INSERT_BATCH);
      for (let j = i; j < end; j++) {
        const r = ordered[j]!;
        values.push(`(${r.timerId},${this.pool.escape(r.app)},'${sqlDateTime(r.runAt)}',${r.version})`);
      }
      statements.push(
        `INSERT INTO tasks (timer_id, app, run_at, timer_version) VALUES ${values.join(',')} ON DUPLICATE KEY UPDATE timer_id = timer_id`,
      );
    }
    // A transaction's connection runs one statement at a time; the pool may run several.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(parallel, statements.length) }, async () => {
        while (next < statements.length) await this.retryDeadlock(statements[next++]!);
      }),
    );
  }

  /** Adds one run made on demand; false if the timer already has a run at that instant. */
  async insertRun(run: PlannedRun, trigger: RunTrigger): Promise<boolean> {
    const [result] = await this.pool.query(
      'INSERT IGNORE INTO tasks (timer_id, app, run_at, timer_version, run_trigger) VALUES (?, ?, ?, ?, ?)',
      [run.timerId, run.app, sqlDateTime(run.runAt), run.version, trigger],
    );
    return (result as { affectedRows: number }).affectedRows === 1;
  }

  /** Makes a failed or missed run pending again, as a retry; false if it is neither. */
  async reopen(timerId: number, runAt: number): Promise<boolean> {
    const [result] = await this.pool.query(
      `UPDATE tasks SET status = 'pending', run_trigger = 'retry', lease_until = NULL, updated_at = CURRENT_TIMESTAMP(3)
        WHERE timer_id = ? AND run_at = ? AND status IN ('failed', 'missed')`,
      [timerId, sqlDateTime(runAt)],
    );
    return (result as { affectedRows: number }).affectedRows === 1;
  }

  /** Deletes a timer's scheduled runs still `pending` at or after `fromMs`; returns them. */
  async deletePending(
    timerId: number,
    fromMs: number,
    except: readonly number[] = [],
  ): Promise<PendingRun[]> {
    const cond = and(
      eq(tasks.timerId, timerId),
      eq(tasks.status, 'pending'),
      eq(tasks.trigger, 'schedule'),
      gte(tasks.runAt, new Date(fromMs)),
      except.length > 0
        ? notInArray(
            tasks.runAt,
            except.map((ms) => new Date(ms)),
          )
        : undefined,
    );
    const rows = await this.db
      .select({ runAt: tasks.runAt, version: tasks.timerVersion })
      .from(tasks)
      .where(cond);
    if (rows.length === 0) return [];
    await this.db.delete(tasks).where(cond);
    return rows.map((r) => ({ timerId, runAt: r.runAt.getTime(), version: r.version }));
  }

  /** The scheduled runs of `timerIds` still `pending`, in one query (a batch of disables). */
  async pendingOfTimers(timerIds: readonly number[]): Promise<PendingRun[]> {
    if (timerIds.length === 0) return [];
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, timer_version FROM tasks
        WHERE timer_id IN (${timerIds.map(Number).join(',')}) AND status = 'pending' AND run_trigger = 'schedule'`,
    );
    return (rows as PendingRow[]).map(toPendingRun);
  }

  /** One timer's scheduled runs still `pending` and due in [fromMs, toMs). */
  async pendingOfTimerBetween(timerId: number, fromMs: number, toMs: number): Promise<PendingRun[]> {
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, timer_version FROM tasks
        WHERE timer_id = ? AND status = 'pending' AND run_trigger = 'schedule' AND run_at >= ? AND run_at < ?`,
      [timerId, sqlDateTime(fromMs), sqlDateTime(toMs)],
    );
    return (rows as PendingRow[]).map(toPendingRun);
  }

  /** Records these runs, where still `pending`, as `skipped` with `reason`. */
  async skipEach(runs: readonly { timerId: number; runAt: number }[], reason: string): Promise<void> {
    for (let i = 0; i < runs.length; i += UPDATE_BATCH) {
      await this.pool.query(
        `UPDATE tasks ${BY_RUN_KEY} SET status = 'skipped', error = ?, updated_at = CURRENT_TIMESTAMP(3)
          WHERE status = 'pending' AND (timer_id, run_at) IN (${runKeys(runs.slice(i, i + UPDATE_BATCH))})`,
        [reason],
      );
    }
  }

  /**
   * Deletes these runs where still `pending` (a disabled timer's runs not yet due). By
   * their keys, not a range: a range's gap locks would make concurrent enables and the
   * migrator's inserts of neighbouring timers deadlock with it.
   */
  async deletePendingRuns(runs: readonly { timerId: number; runAt: number }[]): Promise<void> {
    for (let i = 0; i < runs.length; i += UPDATE_BATCH) {
      await this.pool.query(
        `DELETE t FROM tasks t ${BY_RUN_KEY}
          WHERE t.status = 'pending' AND (t.timer_id, t.run_at) IN (${runKeys(runs.slice(i, i + UPDATE_BATCH))})`,
      );
    }
  }

  /** Records the timer's runs at `runAts` that are still `pending` as `skipped` with `reason`. */
  async skipRuns(timerId: number, runAts: readonly number[], reason: string): Promise<void> {
    for (let i = 0; i < runAts.length; i += UPDATE_BATCH) {
      const at = runAts.slice(i, i + UPDATE_BATCH).map((ms) => `'${sqlDateTime(ms)}'`);
      await this.pool.query(
        `UPDATE tasks SET status = 'skipped', error = ?, updated_at = CURRENT_TIMESTAMP(3)
          WHERE timer_id = ? AND status = 'pending' AND run_trigger = 'schedule' AND run_at IN (${at.join(',')})`,
        [reason, timerId],
      );
    }
  }

  /**
   * Records a timer's scheduled runs still `pending` at or after `fromMs` as `skipped`
   * where `reasonFor` gives a reason (a calendar now lists their date): they are never
   * called, and history shows why. Returns them.
   */
  async skipPending(
    timerId: number,
    fromMs: number,
    reasonFor: (runAt: number) => string | null,
  ): Promise<PendingRun[]> {
    const rows = await this.db
      .select({ runAt: tasks.runAt, version: tasks.timerVersion })
      .from(tasks)
      .where(
        and(
          eq(tasks.timerId, timerId),
          eq(tasks.status, 'pending'),
          eq(tasks.trigger, 'schedule'),
          gte(tasks.runAt, new Date(fromMs)),
        ),
      );
    const skipped: PendingRun[] = [];
    for (const r of rows) {
      const reason = reasonFor(r.runAt.getTime());
      if (reason === null) continue;
      await this.db
        .update(tasks)
        .set({ status: 'skipped', error: reason })
        .where(and(eq(tasks.timerId, timerId), eq(tasks.runAt, r.runAt), eq(tasks.status, 'pending')));
      skipped.push({ timerId, runAt: r.runAt.getTime(), version: r.version });
    }
    return skipped;
  }

  /** Removes every run of a deleted timer, a batch at a time. */
  async deleteAllForTimer(timerId: number, batch = 5000): Promise<void> {
    for (const table of ['tasks', 'task_failures']) {
      for (;;) {
        const [result] = await this.pool.query(`DELETE FROM ${table} WHERE timer_id = ? LIMIT ${batch}`, [
          timerId,
        ]);
        if ((result as { affectedRows: number }).affectedRows < batch) break;
      }
    }
  }

  /**
   * Writes many runs' outcomes in one statement (the executor's hot path: one UPDATE
   * per batch instead of one fsync per run). Fenced by attempt: the outcome of an older
   * attempt (a holder that lost its claim and answered late) never overwrites a newer
   * one's, and a finished run is never set back to running. A run whose row is gone
   * (timer deleted) is not recreated.
   */
  async recordOutcomes(outcomes: readonly RunOutcome[]): Promise<void> {
    const valueRows = await speaksValueRows(this.pool);
    // In key order, as the sweep's and the stops' statements lock their rows (a range over
    // the sorted key list): locked in any other order, they deadlock with each other.
    const sorted = [...outcomes].sort((a, b) => a.timerId - b.timerId || a.runAt - b.runAt);
    for (let i = 0; i < sorted.length; i += UPDATE_BATCH) {
      const rows = sorted
        .slice(i, i + UPDATE_BATCH)
        .map((o) => [
          `${o.timerId}`,
          `CAST('${sqlDateTime(o.runAt)}' AS DATETIME(3))`,
          literal(this.pool, o.status),
          `${o.attempts}`,
          literal(this.pool, o.httpStatus),
          literal(this.pool, o.output),
          literal(this.pool, o.error),
          o.firedAt === null ? 'NULL' : `CAST('${sqlDateTime(o.firedAt)}' AS DATETIME(3))`,
          literal(this.pool, o.durationMs),
          o.leaseUntil === null ? 'NULL' : `CAST('${sqlDateTime(o.leaseUntil)}' AS DATETIME(3))`,
          literal(this.pool, o.answers ? JSON.stringify(o.answers) : null),
        ]);
      // The first row names the columns. MariaDB takes the rest as one table value
      // constructor, ~7 µs of its CPU a row cheaper than a SELECT each; MySQL spells that otherwise.
      const [first, ...rest] = rows;
      const named = `SELECT ${first!.map((c, k) => `${c} AS ${OUTCOME_COLUMNS[k]}`).join(',')}`;
      const derived =
        rest.length === 0
          ? named
          : valueRows
            ? `${named} UNION ALL VALUES ${rest.map((r) => `(${r.join(',')})`).join(',')}`
            : `${named} UNION ALL ${rest.map((r) => `SELECT ${r.join(',')}`).join(' UNION ALL ')}`;
      // An outcome with a call (fired_at set) replaces the answer whole, so an error after
      // an earlier 502 does not show that 502; one without (in flight, skipped) keeps it.
      await this.retryDeadlock(
        `UPDATE tasks t JOIN (${derived}) v ON t.timer_id = v.timer_id AND t.run_at = v.run_at
         SET t.status = v.status,
             t.attempts = v.attempts,
             t.http_status = IF(v.fired_at IS NULL, t.http_status, v.http_status),
             t.output = IF(v.fired_at IS NULL, t.output, v.output),
             t.answer_log = IF(v.fired_at IS NULL, t.answer_log, v.answer_log),
             t.error = v.error,
             t.fired_at = COALESCE(v.fired_at, t.fired_at),
             t.first_fired_at = COALESCE(t.first_fired_at, v.fired_at),
             t.duration_ms = IF(v.fired_at IS NULL, t.duration_ms, v.duration_ms),
             t.lease_until = v.lease_until,
             t.updated_at = CURRENT_TIMESTAMP(3)
         WHERE v.attempts >= t.attempts AND NOT (t.status IN (${TERMINAL}) AND v.status = 'running')`,
      );
    }
  }

  /** A timer's scheduled runs still pending in [fromMs, toMs), soonest first (a plan published again). */
  async pendingOfTimer(timerId: number, fromMs: number, toMs: number): Promise<PendingRun[]> {
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, timer_version FROM tasks
        WHERE timer_id = ? AND run_at >= ? AND run_at < ? AND status = 'pending' AND ${NOT_BACKFILL}
        ORDER BY run_at`,
      [timerId, new Date(fromMs), new Date(toMs)],
    );
    return (rows as PendingRow[]).map(toPendingRun);
  }

  /** Pending runs due in [fromMs, toMs) whose timer falls in `bucket` of `bucketCount` (trigger fallback). */
  async pendingInBucket(
    fromMs: number,
    toMs: number,
    bucket: number,
    bucketCount: number,
  ): Promise<PendingRun[]> {
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, timer_version FROM tasks ${BY_STATUS_AND_TIME}
        WHERE status = 'pending' AND run_at >= ? AND run_at < ? AND MOD(timer_id, ?) = ? AND ${NOT_BACKFILL}
        ORDER BY run_at`,
      [new Date(fromMs), new Date(toMs), bucketCount, bucket],
    );
    return (rows as PendingRow[]).map(toPendingRun);
  }

  /** Current state of each run, by task key (absent if the row is gone). */
  async states(runs: readonly { timerId: number; runAt: number }[]): Promise<Map<string, RunState>> {
    const out = new Map<string, RunState>();
    if (runs.length === 0) return out;
    const where = runs.map((r) => `(${r.timerId}, CAST('${sqlDateTime(r.runAt)}' AS DATETIME(3)))`).join(',');
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, status, attempts, lease_until FROM tasks WHERE (timer_id, run_at) IN (${where})`,
    );
    for (const r of rows as Array<{
      timer_id: number;
      run_at: Date;
      status: TaskStatus;
      attempts: number;
      lease_until: Date | null;
    }>) {
      out.set(taskKey(Number(r.timer_id), r.run_at.getTime()), {
        status: r.status,
        attempts: Number(r.attempts),
        leaseUntil: r.lease_until ? r.lease_until.getTime() : null,
      });
    }
    return out;
  }

  /** Pending runs due in [fromMs, toMs), a page at a time in (run_at, id) order. */
  async pendingPage(
    fromMs: number,
    toMs: number,
    after: { runAt: number; id: number } | null,
    limit: number,
  ): Promise<Array<PendingRun & { id: number }>> {
    const [rows] = after
      ? await this.pool.query(
          `SELECT id, timer_id, run_at, timer_version FROM tasks ${BY_STATUS_AND_TIME}
            WHERE status = 'pending' AND run_at < ? AND (run_at > ? OR (run_at = ? AND id > ?)) AND ${NOT_BACKFILL}
            ORDER BY run_at, id LIMIT ?`,
          [new Date(toMs), new Date(after.runAt), new Date(after.runAt), after.id, limit],
        )
      : await this.pool.query(
          `SELECT id, timer_id, run_at, timer_version FROM tasks ${BY_STATUS_AND_TIME}
            WHERE status = 'pending' AND run_at >= ? AND run_at < ? AND ${NOT_BACKFILL}
            ORDER BY run_at, id LIMIT ?`,
          [new Date(fromMs), new Date(toMs), limit],
        );
    return (rows as Array<PendingRow & { id: number }>).map((r) => ({
      id: Number(r.id),
      ...toPendingRun(r),
    }));
  }

  /** Timers with pending runs, per minute (minute start ms → count), in [fromMs, toMs). */
  async pendingTimersPerMinute(fromMs: number, toMs: number): Promise<Map<number, number>> {
    const [rows] = await this.pool.query(
      `SELECT FLOOR(UNIX_TIMESTAMP(run_at) / 60) AS m, COUNT(DISTINCT timer_id) AS n FROM tasks ${BY_STATUS_AND_TIME}
        WHERE status = 'pending' AND run_at >= ? AND run_at < ? AND ${NOT_BACKFILL} GROUP BY m`,
      [new Date(fromMs), new Date(toMs)],
    );
    return new Map((rows as Array<{ m: number; n: number }>).map((r) => [Number(r.m) * 60_000, Number(r.n)]));
  }

  /**
   * Pending runs due before `beforeMs`, oldest first, a page at a time: pass the page's
   * `next` to read on past runs the caller leaves pending.
   */
  async overduePending(
    beforeMs: number,
    limit: number,
    after?: OverdueCursor,
  ): Promise<OverduePage<OverdueRun>> {
    return overduePage<PendingRow & { id: number; run_trigger: string }, OverdueRun>(
      (r) => ({ ...toPendingRun(r), trigger: r.run_trigger as RunTrigger }),
      async (fromMs, n) => {
        const [rows] = await this.pool.query(
          `SELECT id, timer_id, run_at, timer_version, run_trigger FROM tasks ${BY_STATUS_AND_TIME}
            WHERE status = 'pending' AND run_at < ? AND ${NOT_BACKFILL}
              ${fromMs === null ? '' : 'AND run_at >= ?'}
            ORDER BY run_at LIMIT ?`,
          [new Date(beforeMs), ...(fromMs === null ? [] : [new Date(fromMs)]), n],
        );
        return rows as Array<PendingRow & { id: number; run_trigger: string }>;
      },
      limit,
      after,
    );
  }

  /** The oldest runs still running whose lease ended before `beforeMs`. */
  async pastLease(beforeMs: number, limit: number): Promise<StuckRun[]> {
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, timer_version, attempts, run_trigger FROM tasks ${BY_STATUS_AND_TIME}
        WHERE status = 'running' AND lease_until < ? ORDER BY run_at LIMIT ?`,
      [new Date(beforeMs), limit],
    );
    return (rows as Array<PendingRow & { attempts: number; run_trigger: string }>).map((r) => ({
      ...toPendingRun(r),
      attempts: Number(r.attempts),
      trigger: r.run_trigger as RunTrigger,
    }));
  }

  /**
   * Scheduled runs still pending at `now` that their timer's misfire policy may no longer
   * let be called: later than its threshold and than `minLateMs` (`fire_all` timers' runs
   * are owed a call however late: not these), or of a timer no longer active. Oldest
   * first, a page at a time.
   */
  async pastThreshold(
    now: number,
    minLateMs: number,
    limit: number,
    after?: OverdueCursor,
  ): Promise<OverduePage<PendingRun>> {
    return overduePage<PendingRow & { id: number }, PendingRun>(
      toPendingRun,
      async (fromMs, n) => {
        // Past capacity, beside the backlog's own writes, a page can take longer than the
        // pool's read timeout (meant for half-open connections), and a pass that gives up settles nothing.
        const [rows] = await this.pool.query(
          {
            timeout: SWEEP_READ_TIMEOUT_MS,
            sql: `SELECT t.id, t.timer_id, t.run_at, t.timer_version FROM tasks t ${BY_STATUS_AND_TIME}
             LEFT JOIN timers m ON m.id = t.timer_id
            WHERE t.status = 'pending' AND t.run_trigger = 'schedule' AND t.run_at < ?
              ${fromMs === null ? '' : 'AND t.run_at >= ?'}
              AND (m.id IS NULL OR m.status = 'inactive' OR (m.misfire_policy <> 'fire_all'
                   AND t.run_at < DATE_SUB(?, INTERVAL GREATEST(m.misfire_threshold_ms, ?) * 1000 MICROSECOND)))
            ORDER BY t.run_at LIMIT ?`,
          },
          [
            new Date(now - minLateMs),
            ...(fromMs === null ? [] : [new Date(fromMs)]),
            new Date(now),
            minLateMs,
            n,
          ],
        );
        return rows as Array<PendingRow & { id: number }>;
      },
      limit,
      after,
    );
  }

  /** Records runs that were never called as `missed` or `skipped`, only where they are still pending. */
  async settleUncalled(
    runs: readonly { timerId: number; runAt: number }[],
    status: 'missed' | 'skipped',
    reason: string,
  ): Promise<void> {
    for (let i = 0; i < runs.length; i += SETTLE_BATCH) {
      const sql = `UPDATE tasks ${BY_RUN_KEY} SET status = ?, error = ?, updated_at = CURRENT_TIMESTAMP(3)
          WHERE status = 'pending' AND (timer_id, run_at) IN (${runKeys(runs.slice(i, i + SETTLE_BATCH))})`;
      await this.retryDeadlock(sql, [status, reason]);
    }
  }

  /**
   * Sends a statement that settles runs, again when it deadlocked: beside the executors'
   * outcome writes and the sweep's it may deadlock on the status index's gaps, and it was
   * rolled back whole. Each such statement is fenced, so sending it twice does no harm. So
   * is an insert of runs, which locks in run-time order, not in key order as these do.
   */
  private async retryDeadlock(sql: string, values?: unknown[]): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await this.pool.query(sql, values);
        return;
      } catch (err) {
        // A transaction's deadlock rolled all of it back: only its caller can run it again.
        if (this.inTransaction || !isDeadlock(err) || tries >= DEADLOCK_TRIES) throw err;
      }
    }
  }

  /** Runs of the timer with a call behind them that are not finished: in a call, or backing off to retry. */
  async countRunning(timerId: number): Promise<number> {
    const [rows] = await this.pool.query(
      "SELECT COUNT(*) AS n FROM tasks WHERE timer_id = ? AND status = 'running'",
      [timerId],
    );
    return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
  }

  /** How many runs listForTimer can list (kept failures included). */
  async countForTimer(timerId: number, statuses?: readonly TaskStatus[]): Promise<number> {
    const count = async (t: RunTable, also?: SQL) => {
      const [row] = await this.db
        .select({ n: sql<number>`count(*)` })
        .from(t)
        .where(
          and(
            eq(t.timerId, timerId),
            statuses && statuses.length > 0 ? inArray(t.status, [...statuses]) : undefined,
            also,
          ),
        );
      return Number(row?.n ?? 0);
    };
    // A failure kept a moment before its day is dropped is in both tables till then: once.
    const copied = sql`EXISTS (SELECT 1 FROM tasks t WHERE t.timer_id = ${taskFailures.timerId} AND t.run_at = ${taskFailures.runAt})`;
    const [live, kept] = await Promise.all([count(tasks), count(taskFailures, sql`NOT ${copied}`)]);
    return live + kept;
  }
}
