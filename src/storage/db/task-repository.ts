import { and, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Pool } from 'mysql2/promise';
import type { Task, TaskStatus } from '../../domain/timer.js';
import type { Db } from './client.js';
import { type TaskRow, tasks } from './schema.js';

function toTask(row: TaskRow): Task {
  return {
    rowId: row.id,
    timerId: row.timerId,
    app: row.app,
    runAt: row.runAt.getTime(),
    status: row.status as TaskStatus,
    attempts: row.attempts,
    httpStatus: row.httpStatus,
    output: row.output,
    error: row.error,
    firedAt: row.firedAt ? row.firedAt.getTime() : null,
    durationMs: row.durationMs,
  };
}

/** `YYYY-MM-DD HH:MM:SS.mmm` (UTC): a DATETIME(3) literal. */
export function sqlDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

export interface TaskListQuery {
  timerId: number;
  statuses?: readonly TaskStatus[];
  fromMs?: number;
  toMs?: number;
  /** Cursor: only runs strictly before this instant. */
  beforeMs?: number;
  limit: number;
  offset?: number;
}

/** A run to materialise. */
export interface PlannedRun {
  timerId: number;
  app: string;
  runAt: number;
}

const INSERT_BATCH = 2000;

/** Runs (one row per scheduled instant) in MySQL. `db` and `pool` may be a transaction's. */
export class TaskRepository {
  constructor(
    private readonly db: Db,
    private readonly pool: Pick<Pool, 'query' | 'escape'>,
  ) {}

  withDb(db: Db, pool: Pick<Pool, 'query' | 'escape'>): TaskRepository {
    return new TaskRepository(db, pool);
  }

  /** Newest first, keyset-paginated on run_at (unique per timer). */
  async listForTimer(q: TaskListQuery): Promise<Task[]> {
    const where = and(
      eq(tasks.timerId, q.timerId),
      q.statuses && q.statuses.length > 0 ? inArray(tasks.status, [...q.statuses]) : undefined,
      q.fromMs === undefined ? undefined : gte(tasks.runAt, new Date(q.fromMs)),
      q.toMs === undefined ? undefined : lt(tasks.runAt, new Date(q.toMs)),
      q.beforeMs === undefined ? undefined : lt(tasks.runAt, new Date(q.beforeMs)),
    );
    const rows = await this.db
      .select()
      .from(tasks)
      .where(where)
      .orderBy(desc(tasks.runAt))
      .limit(q.limit)
      .offset(q.offset ?? 0);
    return rows.map(toTask);
  }

  async find(timerId: number, runAt: number): Promise<Task | null> {
    const rows = await this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.timerId, timerId), eq(tasks.runAt, new Date(runAt))));
    return rows[0] ? toTask(rows[0]) : null;
  }

  /**
   * Materialises runs, idempotently: a run that exists already is left as it is and
   * never aborts the batch. Raw multi-row SQL: this is the migrator's hot path, and
   * a multi-row insert is ~30x faster than one statement per row.
   */
  async insertRuns(runs: readonly PlannedRun[]): Promise<void> {
    for (let i = 0; i < runs.length; i += INSERT_BATCH) {
      const values: string[] = [];
      const end = Math.min(runs.length, i + INSERT_BATCH);
      for (let j = i; j < end; j++) {
        const r = runs[j]!;
        values.push(`(${r.timerId},${this.pool.escape(r.app)},'${sqlDateTime(r.runAt)}')`);
      }
      await this.pool.query(
        `INSERT INTO tasks (timer_id, app, run_at) VALUES ${values.join(',')} ON DUPLICATE KEY UPDATE timer_id = timer_id`,
      );
    }
  }

  /** Deletes a timer's runs still `pending` at or after `fromMs`; returns their run times. */
  async deletePending(timerId: number, fromMs: number): Promise<number[]> {
    const cond = and(
      eq(tasks.timerId, timerId),
      eq(tasks.status, 'pending'),
      gte(tasks.runAt, new Date(fromMs)),
    );
    const rows = await this.db.select({ runAt: tasks.runAt }).from(tasks).where(cond);
    if (rows.length === 0) return [];
    await this.db.delete(tasks).where(cond);
    return rows.map((r) => r.runAt.getTime());
  }

  /** Removes every run of a deleted timer, a batch at a time. */
  async deleteAllForTimer(timerId: number, batch = 5000): Promise<void> {
    for (;;) {
      const [result] = await this.pool.query(`DELETE FROM tasks WHERE timer_id = ? LIMIT ${batch}`, [
        timerId,
      ]);
      if ((result as { affectedRows: number }).affectedRows < batch) return;
    }
  }

  async countForTimer(timerId: number): Promise<number> {
    const [row] = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(tasks)
      .where(eq(tasks.timerId, timerId));
    return Number(row?.n ?? 0);
  }
}
