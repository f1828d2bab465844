import { and, desc, eq, gt, inArray, lt } from 'drizzle-orm';
import type { Backfill, BackfillProgress, BackfillState } from '../../domain/backfill.js';
import type { OverlapPolicy, TaskStatus } from '../../domain/timer.js';
import type { Db } from './client.js';
import { type BackfillRow, backfills } from './schema.js';
import { sqlDateTime } from './task-repository.js';

type Sql = { query(sql: string, values?: unknown): Promise<unknown>; escape(v: unknown): string };

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
    status: row.status as BackfillState,
    runs: row.runs,
    planned: row.planned,
    sent: row.sent,
    cursor: row.cursorAt.getTime(),
    checkedAt: row.checkedAt?.getTime() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.getTime(),
    pacedAt: row.updatedAt.getTime(),
  };
}

export interface NewBackfill {
  timerId: number;
  app: string;
  from: number;
  to: number;
  overlapPolicy: OverlapPolicy | null;
  runs: number;
  planned: number;
  createdBy: string | null;
}

/**
 * Backfills and their runs in MySQL. A backfill's runs are `tasks` rows with trigger
 * `backfill` in its range, written at or after it was created (an earlier backfill of the
 * same range made its own). `db` and `sql` may be a transaction's.
 */
export class BackfillRepository {
  constructor(
    private readonly db: Db,
    private readonly sql: Sql,
  ) {}

  withDb(db: Db, conn: Sql): BackfillRepository {
    return new BackfillRepository(db, conn);
  }

  async insert(b: NewBackfill): Promise<number> {
    const [result] = await this.db.insert(backfills).values({
      timerId: b.timerId,
      app: b.app,
      fromAt: new Date(b.from),
      toAt: new Date(b.to),
      overlapPolicy: b.overlapPolicy,
      status: b.planned > 0 ? 'sending' : 'completed',
      runs: b.runs,
      planned: b.planned,
      cursorAt: new Date(b.from),
      createdBy: b.createdBy,
    });
    return Number(result.insertId);
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

  /** A backfill of the timer still under way whose range meets `[from, to)`, if any. */
  async overlapping(timerId: number, from: number, to: number): Promise<Backfill | null> {
    const rows = await this.db
      .select()
      .from(backfills)
      .where(
        and(
          eq(backfills.timerId, timerId),
          inArray(backfills.status, ['sending', 'sent']),
          lt(backfills.fromAt, new Date(to)),
          gt(backfills.toAt, new Date(from)),
        ),
      )
      .limit(1);
    return rows[0] ? toBackfill(rows[0]) : null;
  }

  /**
   * Backfills under way, locked for this transaction; those another node holds are
   * skipped (it is pacing them now).
   */
  async lockUnderway(limit: number): Promise<Backfill[]> {
    return this.locked(
      `SELECT id FROM backfills WHERE status IN ('sending', 'sent') ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /** The backfill, locked for this transaction (waiting for a pacer that holds it). */
  async lockOne(id: number): Promise<Backfill | null> {
    const [found] = await this.locked('SELECT id FROM backfills WHERE id = ? FOR UPDATE', [id]);
    return found ?? null;
  }

  private async locked(query: string, values: unknown[]): Promise<Backfill[]> {
    const [rows] = (await this.sql.query(query, values)) as [Array<{ id: number }>];
    if (rows.length === 0) return [];
    const ids = rows.map((r) => Number(r.id));
    const found = await this.db.select().from(backfills).where(inArray(backfills.id, ids));
    return found.map(toBackfill).sort((a, b) => a.id - b.id);
  }

  /** Records the pacer's progress: runs queued, where it goes on, its state, when it did. */
  async advance(
    id: number,
    change: { sent: number; cursor: number; status: BackfillState; pacedAt: number; checkedAt?: number },
  ): Promise<void> {
    await this.db
      .update(backfills)
      .set({
        sent: change.sent,
        cursorAt: new Date(change.cursor),
        status: change.status,
        updatedAt: new Date(change.pacedAt),
        ...(change.checkedAt !== undefined ? { checkedAt: new Date(change.checkedAt) } : {}),
      })
      .where(eq(backfills.id, id));
  }

  /** Ends a backfill under way as `cancelled`; false if it had ended. */
  async cancel(id: number): Promise<boolean> {
    const [result] = await this.db
      .update(backfills)
      .set({ status: 'cancelled' })
      .where(and(eq(backfills.id, id), inArray(backfills.status, ['sending', 'sent'])));
    return result.affectedRows === 1;
  }

  /** The runs of `runAts` the timer already has (any trigger, any status). */
  async existingRuns(timerId: number, from: number, to: number): Promise<Set<number>> {
    const [rows] = (await this.sql.query(
      'SELECT run_at FROM tasks WHERE timer_id = ? AND run_at >= ? AND run_at < ?',
      [timerId, sqlDateTime(from), sqlDateTime(to)],
    )) as [Array<{ run_at: Date }>];
    return new Set(rows.map((r) => r.run_at.getTime()));
  }

  /** Adds a backfill's runs (pending, trigger `backfill`); a run the timer has already is left alone. */
  async insertRuns(
    run: { timerId: number; app: string; version: number },
    runAts: readonly number[],
  ): Promise<void> {
    for (let i = 0; i < runAts.length; i += INSERT_BATCH) {
      const values = runAts
        .slice(i, i + INSERT_BATCH)
        .map(
          (at) =>
            `(${run.timerId},${this.sql.escape(run.app)},'${sqlDateTime(at)}',${run.version},'backfill')`,
        );
      await this.sql.query(
        `INSERT IGNORE INTO tasks (timer_id, app, run_at, timer_version, run_trigger) VALUES ${values.join(',')}`,
      );
    }
  }

  /** The backfill's next `limit` pending runs at or after `fromMs` (run order). */
  async nextRuns(
    b: Backfill,
    fromMs: number,
    limit: number,
  ): Promise<Array<{ runAt: number; version: number }>> {
    const [rows] = (await this.sql.query(
      `SELECT run_at, timer_version FROM tasks
        WHERE timer_id = ? AND run_at >= ? AND run_at < ? AND run_trigger = 'backfill' AND status = 'pending'
          AND created_at >= ?
        ORDER BY run_at LIMIT ?`,
      [b.timerId, sqlDateTime(fromMs), sqlDateTime(b.to), sqlDateTime(b.createdAt), limit],
    )) as [Array<{ run_at: Date; timer_version: number }>];
    return rows.map((r) => ({ runAt: r.run_at.getTime(), version: Number(r.timer_version) }));
  }

  /** Its runs before `beforeMs` (queued already) that are still pending: queued, but never claimed. */
  async unclaimedRuns(b: Backfill, beforeMs: number): Promise<Array<{ runAt: number; version: number }>> {
    return this.nextRuns({ ...b, to: Math.min(b.to, beforeMs) }, b.from, 10_000);
  }

  /** Removes its runs not yet queued (from `cursor` on); returns how many. */
  async deleteUnsent(b: Backfill): Promise<number> {
    const [result] = (await this.sql.query(
      `DELETE FROM tasks
        WHERE timer_id = ? AND run_at >= ? AND run_at < ? AND run_trigger = 'backfill' AND status = 'pending'
          AND created_at >= ?`,
      [b.timerId, sqlDateTime(b.cursor), sqlDateTime(b.to), sqlDateTime(b.createdAt)],
    )) as [{ affectedRows: number }];
    return result.affectedRows;
  }

  /** How its runs stand, by status. */
  async progress(b: Backfill): Promise<BackfillProgress> {
    const [rows] = (await this.sql.query(
      `SELECT status, COUNT(*) AS n FROM tasks
        WHERE timer_id = ? AND run_at >= ? AND run_at < ? AND run_trigger = 'backfill' AND created_at >= ?
        GROUP BY status`,
      [b.timerId, sqlDateTime(b.from), sqlDateTime(b.to), sqlDateTime(b.createdAt)],
    )) as [Array<{ status: TaskStatus; n: number }>];
    const out: BackfillProgress = { pending: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, missed: 0 };
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }
}
