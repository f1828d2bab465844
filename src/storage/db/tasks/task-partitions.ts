import { getTableColumns } from 'drizzle-orm';
import type { Pool, PoolConnection } from 'mysql2/promise';
import {
  DAY,
  type DayPartition,
  FUTURE_PARTITION,
  partitionName,
} from '../../../domain/plan/day-partitions.js';
import { sqlDateTime } from '../multi-row-insert.js';
import { taskFailures } from '../schema.js';

/** How long partition DDL waits for the table's metadata lock before giving up (queries queue behind it meanwhile). */
const DDL_LOCK_WAIT_SECONDS = 5;
const FAILURE_PURGE_BATCH = 10_000;

/** The run columns `tasks` and `task_failures` share, as a column list (their physical orders differ). */
const RUN_COLUMNS = Object.values(getTableColumns(taskFailures))
  .map((c) => `\`${c.name}\``)
  .join(', ');
/** Every column of a kept failure set from the row copied again. */
const RUN_REFRESH = Object.values(getTableColumns(taskFailures))
  .map((c) => `\`${c.name}\` = VALUES(\`${c.name}\`)`)
  .join(', ');

/**
 * The day partitions of `tasks` (domain/day-partitions.ts) in SQL: list them, split
 * days off `p_future`, copy a day's failed and missed runs to `task_failures` and drop
 * the day. DDL runs on a connection of its own with a short metadata-lock wait, so a
 * long transaction makes it give up and try again later rather than stall the table.
 */
export class TaskPartitions {
  constructor(private readonly pool: Pool) {}

  /** The partitions of `tasks`, or null when the table is not partitioned. */
  async list(): Promise<DayPartition[] | null> {
    const [rows] = await this.pool.query(
      `SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS bound
         FROM information_schema.PARTITIONS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tasks'
        ORDER BY PARTITION_ORDINAL_POSITION`,
    );
    const list = rows as Array<{ name: string | null; bound: string | null }>;
    if (list.length === 0 || list[0]!.name === null) return null;
    return list.map((r) => ({ name: r.name!, lessThan: boundOf(r.bound) }));
  }

  /** Splits the days starting at `days` (UTC midnights, ascending) off `p_future`, a partition each. */
  async addDays(days: readonly number[]): Promise<void> {
    if (days.length === 0) return;
    const parts = days.map(
      (d) => `PARTITION \`${partitionName(d)}\` VALUES LESS THAN ('${sqlDateTime(d + DAY)}')`,
    );
    await this.ddl(
      `ALTER TABLE tasks REORGANIZE PARTITION \`${FUTURE_PARTITION}\` INTO (${parts.join(', ')}, PARTITION \`${FUTURE_PARTITION}\` VALUES LESS THAN (MAXVALUE))`,
    );
  }

  /**
   * Copies a partition's failed and missed runs to `task_failures`, or copies them again
   * as they are now (a pass whose drop failed leaves them in both tables till the next);
   * returns how many rows it wrote.
   */
  async keepFailures(partition: string): Promise<number> {
    const [result] = await this.pool.query(
      `INSERT INTO task_failures (${RUN_COLUMNS})
       SELECT ${RUN_COLUMNS} FROM tasks PARTITION (\`${checkedName(partition)}\`)
        WHERE status IN ('failed', 'missed')
       ON DUPLICATE KEY UPDATE ${RUN_REFRESH}`,
    );
    return (result as { affectedRows: number }).affectedRows;
  }

  /** Drops a partition and every run in it. */
  async drop(partition: string): Promise<void> {
    await this.ddl(`ALTER TABLE tasks DROP PARTITION \`${checkedName(partition)}\``);
  }

  /** Deletes kept failures older than `beforeMs`, in batches; returns how many. */
  async purgeFailures(beforeMs: number): Promise<number> {
    let purged = 0;
    for (;;) {
      const [result] = await this.pool.query('DELETE FROM task_failures WHERE run_at < ? LIMIT ?', [
        new Date(beforeMs),
        FAILURE_PURGE_BATCH,
      ]);
      const n = (result as { affectedRows: number }).affectedRows;
      purged += n;
      if (n < FAILURE_PURGE_BATCH) return purged;
    }
  }

  private async ddl(statement: string): Promise<void> {
    const conn: PoolConnection = await this.pool.getConnection();
    try {
      await conn.query(`SET SESSION lock_wait_timeout = ${DDL_LOCK_WAIT_SECONDS}`);
      await conn.query(statement);
    } finally {
      // The connection goes back to the pool: it must not keep the short wait.
      await conn.query('SET SESSION lock_wait_timeout = DEFAULT').catch(() => undefined);
      conn.release();
    }
  }
}

/** A RANGE COLUMNS bound as information_schema shows it (`'2026-11-25 00:00:00'`, or MAXVALUE). */
function boundOf(description: string | null): number | null {
  if (description === null || description === 'MAXVALUE') return null;
  const text = description.replace(/^'|'$/g, '');
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}

/** Partition names come from the database or partitionName(): refuse anything else in SQL. */
function checkedName(name: string): string {
  if (!/^p(\d{8}|_future)$/.test(name)) throw new Error(`not a tasks partition: ${name}`);
  return name;
}
