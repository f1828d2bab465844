import { and, desc, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Pool } from 'mysql2/promise';
import type { Backfill, BackfillProgress, BackfillStage } from '../../domain/backfill.js';
import type { OverlapPolicy, TaskStatus } from '../../domain/timer.js';
import type { Db } from './client.js';
import { sqlDateTime } from './multi-row-insert.js';
import { type BackfillRow, backfills } from './schema.js';

/** Raw SQL, as TaskRepository takes it: the pool, or a transaction's connection. */
type Sql = Pick<Pool, 'query' | 'escape'>;

/** Rows per INSERT of a backfill's runs. */
const INSERT_BATCH = 2000;

function toBackfill(row: BackfillRow): Backfill {
  return {
    id: row.id,
    timerId: row.timerId,
    app: row.app,
    from: row.fromAt.getTime(),
    to: row.toAt.getTime(),
    overlapPolicy: row.overlapPolicy as OverlapPolicy | null,
    stage: row.status as BackfillStage,
    round: row.round,
    runs: row.runs,
    planned: row.planned,
    sent: row.sent,
    cursor: row.cursorAt.getTime(),
    pacedAt: row.updatedAt.getTime(),
    checkedAt: row.checkedAt?.getTime() ?? null,
    cancelledAt: row.cancelledAt?.getTime() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.getTime(),
    runsUntil: (row.runsUntil ?? row.createdAt).getTime(),
  };
}

/**
 * Of `tasks`, the rows that are the backfill's runs (placeholders: timer, from, to,
 * created from, created until). A user's retry of one makes its trigger `retry`: still
 * the backfill's, counted until it ends, but its own job carries it and the compensator
 * watches it, so the pacer sends only those still `backfill` (TO_SEND).
 */
const ITS_RUNS = `timer_id = ? AND run_at >= ? AND run_at < ? AND run_trigger IN ('backfill', 'retry') AND created_at BETWEEN ? AND ?`;
const TO_SEND = `${ITS_RUNS} AND run_trigger = 'backfill'`;
const itsRuns = (b: Backfill, from = b.from, to = b.to) => [
  b.timerId,
  sqlDateTime(from),
  sqlDateTime(to),
  sqlDateTime(b.createdAt),
  sqlDateTime(b.runsUntil),
];

export interface NewBackfill {
  timerId: number;
  app: string;
  from: number;
  to: number;
  overlapPolicy: OverlapPolicy | null;
  runs: number;
  createdBy: string | null;
}

/**
 * Backfills and their runs in MySQL. A backfill's runs are the `tasks` rows with trigger
 * `backfill` in its range written by the transaction that created it: between its
 * `created_at` and `runs_until` (backfills of one timer start one at a time, under the
 * timer's row lock). `db` and `sql` may be a transaction's.
 */
export class BackfillRepository {
  constructor(
    private readonly db: Db,
    private readonly sql: Sql,
  ) {}

  withDb(db: Db, conn: Sql): BackfillRepository {
    return new BackfillRepository(db, conn);
  }

  /**
   * Stores the backfill and its runs (pending, trigger `backfill`); the instants the timer
   * has already are left alone. Returns its id.
   */
  async insert(b: NewBackfill, version: number, runAts: readonly number[]): Promise<number> {
    const [result] = await this.db.insert(backfills).values({
      timerId: b.timerId,
      app: b.app,
      fromAt: new Date(b.from),
      toAt: new Date(b.to),
      overlapPolicy: b.overlapPolicy,
      status: 'sending',
      runs: b.runs,
      planned: 0,
      cursorAt: new Date(b.from),
      createdBy: b.createdBy,
    });
    const id = Number(result.insertId);
    let planned = 0;
    for (let i = 0; i < runAts.length; i += INSERT_BATCH) {
      const values = runAts
        .slice(i, i + INSERT_BATCH)
        .map((at) => `(${b.timerId},${this.sql.escape(b.app)},'${sqlDateTime(at)}',${version},'backfill')`);
      const [insertedResult] = await this.sql.query(
        `INSERT IGNORE INTO tasks (timer_id, app, run_at, timer_version, run_trigger) VALUES ${values.join(',')}`,
      );
      const inserted = insertedResult as { affectedRows: number };
      planned += inserted.affectedRows;
    }
    // Rows written from here on (a later backfill's) are not this one's.
    await this.sql.query(
      `UPDATE backfills SET runs_until = CURRENT_TIMESTAMP(3), planned = ?, status = ? WHERE id = ?`,
      [planned, planned > 0 ? 'sending' : 'ended', id],
    );
    return id;
  }

  async find(timerId: number, id: number): Promise<Backfill | null> {
    const rows = await this.db
      .select()
      .from(backfills)
      .where(and(eq(backfills.id, id), eq(backfills.timerId, timerId)));
    return rows[0] ? toBackfill(rows[0]) : null;
  }

  /** The timer's backfills, newest first. */
  async listForTimer(timerId: number, limit: number): Promise<Backfill[]> {
    const rows = await this.db
      .select()
      .from(backfills)
      .where(eq(backfills.timerId, timerId))
      .orderBy(desc(backfills.id))
      .limit(limit);
    return rows.map(toBackfill);
  }

  /** The timer's backfills not yet ended whose range meets `[from, to)`. */
  async overlapping(timerId: number, from: number, to: number): Promise<Backfill[]> {
    const rows = await this.db
      .select()
      .from(backfills)
      .where(
        and(
          eq(backfills.timerId, timerId),
          inArray(backfills.status, ['sending', 'sent']),
          isNull(backfills.cancelledAt),
          lt(backfills.fromAt, new Date(to)),
          gt(backfills.toAt, new Date(from)),
        ),
      );
    return rows.map(toBackfill);
  }

  /**
   * Backfills under way, least recently paced first, taking turns by app: with more than
   * a tick takes, each gets its turn, and an app with many does not crowd out the others'.
   */
  async underway(limit: number): Promise<number[]> {
    const [rowsResult] = await this.sql.query(
      `SELECT id FROM (
         SELECT id, updated_at, ROW_NUMBER() OVER (PARTITION BY app ORDER BY updated_at, id) AS turn
           FROM backfills WHERE status IN ('sending', 'sent')
       ) b ORDER BY turn, updated_at, id LIMIT ?`,
      [limit],
    );
    const rows = rowsResult as Array<{ id: number }>;
    return rows.map((r) => Number(r.id));
  }

  /** The backfill, locked for this transaction, if it is under way and no other pacer holds it. */
  async lockIfUnderway(id: number): Promise<Backfill | null> {
    const [found] = await this.locked(
      `SELECT id FROM backfills WHERE id = ? AND status IN ('sending', 'sent') FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return found ?? null;
  }

  /** The backfill, locked for this transaction (waiting for a pacer that holds it). */
  async lockOne(id: number): Promise<Backfill | null> {
    const [found] = await this.locked('SELECT id FROM backfills WHERE id = ? FOR UPDATE', [id]);
    return found ?? null;
  }

  private async locked(query: string, values: unknown[]): Promise<Backfill[]> {
    const [rowsResult] = await this.sql.query(query, values);
    const rows = rowsResult as Array<{ id: number }>;
    if (rows.length === 0) return [];
    const ids = rows.map((r) => Number(r.id));
    const found = await this.db.select().from(backfills).where(inArray(backfills.id, ids));
    return found.map(toBackfill).sort((a, b) => a.id - b.id);
  }

  /** Records the pacer's progress: runs queued, where it goes on, its stage and round, when it did. */
  async advance(
    id: number,
    change: Pick<Backfill, 'sent' | 'cursor' | 'stage' | 'round' | 'pacedAt'> & { checkedAt?: number },
  ): Promise<void> {
    await this.db
      .update(backfills)
      .set({
        sent: change.sent,
        cursorAt: new Date(change.cursor),
        status: change.stage,
        round: change.round,
        updatedAt: new Date(change.pacedAt),
        ...(change.checkedAt !== undefined ? { checkedAt: new Date(change.checkedAt) } : {}),
      })
      .where(eq(backfills.id, id));
  }

  /**
   * Cancels a backfill under way: its runs not yet queued are removed (those queued end as
   * they will, the pacer still watching them). Returns how many were removed; null if it
   * was cancelled already.
   */
  async cancel(b: Backfill, now: number): Promise<number | null> {
    if (b.cancelledAt !== null) return null;
    // updated_at is the pacer's clock (pacedAt): a cancel leaves it.
    await this.db
      .update(backfills)
      .set({ cancelledAt: new Date(now), updatedAt: sql`updated_at` })
      .where(eq(backfills.id, b.id));
    // After round 0 every run has been queued once: none is unsent.
    if (b.round > 0 || b.stage === 'ended') return 0;
    const [resultResult] = await this.sql.query(
      `DELETE FROM tasks WHERE ${TO_SEND} AND status = 'pending'`,
      itsRuns(b, b.cursor),
    );
    const result = resultResult as { affectedRows: number };
    return result.affectedRows;
  }

  /** The runs of `runAts` the timer already has (any trigger, any status). */
  async existingRuns(timerId: number, from: number, to: number): Promise<Set<number>> {
    const [rowsResult] = await this.sql.query(
      'SELECT run_at FROM tasks WHERE timer_id = ? AND run_at >= ? AND run_at < ?',
      [timerId, sqlDateTime(from), sqlDateTime(to)],
    );
    const rows = rowsResult as Array<{ run_at: Date }>;
    return new Set(rows.map((r) => r.run_at.getTime()));
  }

  /** The backfill's next `limit` pending runs at or after `fromMs` (run order). */
  async nextRuns(
    b: Backfill,
    fromMs: number,
    limit: number,
  ): Promise<Array<{ runAt: number; version: number }>> {
    const [rowsResult] = await this.sql.query(
      `SELECT run_at, timer_version FROM tasks WHERE ${TO_SEND} AND status = 'pending' ORDER BY run_at LIMIT ?`,
      [...itsRuns(b, fromMs), limit],
    );
    const rows = rowsResult as Array<{ run_at: Date; timer_version: number }>;
    return rows.map((r) => ({ runAt: r.run_at.getTime(), version: Number(r.timer_version) }));
  }

  /** How its runs stand, by status. */
  async progress(b: Backfill): Promise<BackfillProgress> {
    const [rowsResult] = await this.sql.query(
      `SELECT status, COUNT(*) AS n FROM tasks WHERE ${ITS_RUNS} GROUP BY status`,
      itsRuns(b),
    );
    const rows = rowsResult as Array<{ status: TaskStatus; n: number }>;
    const out: BackfillProgress = { pending: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, missed: 0 };
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }
}
