import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/mysql2';
import { migrate } from 'drizzle-orm/mysql2/migrator';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../../../src/domain/plan/day-partitions.js';
import { createLogger } from '../../../../src/observability/logger.js';
import {
  HistoryRetention,
  type RetentionReport,
} from '../../../../src/services/planning/history-retention.js';
import { MIGRATIONS_FOLDER, prepareDatabase } from '../../../../src/storage/db/migrate.js';
import { sqlDateTime } from '../../../../src/storage/db/multi-row-insert.js';
import { TaskPartitions } from '../../../../src/storage/db/tasks/task-partitions.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import {
  createTestStores,
  dropDatabase,
  MYSQL_SERVER,
  type TestStores,
  uniqueName,
} from '../../../helpers/stores.js';

/**
 * Run history by day: `tasks` is RANGE-partitioned on run_at. Days are added
 * ahead and dropped whole once past TASK_RETENTION_DAYS, their failed and missed runs
 * kept in task_failures until TASK_RETENTION_FAILED_DAYS, and still listed with the
 * timer's runs. Migration 0009 moves an existing table's history onto the partitions.
 */

const at = (iso: string) => Date.parse(iso);
const STATUSES = ['succeeded', 'failed', 'missed'] as const;

let stores: TestStores;
let partitions: TaskPartitions;
let tasks: TaskRepository;

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const [rows] = await stores.database.pool.query(sql, params);
  return rows as T[];
}

/** Runs of timer 1 at 10:00 on each day from `first`, one per status. */
async function insertDays(first: string, days: number): Promise<void> {
  const values: string[] = [];
  for (let d = 0; d < days; d++) {
    STATUSES.forEach((status, i) => {
      const runAt = at(first) + d * DAY + 10 * 3600_000 + i * 1000;
      values.push(`(1, 'app', '${sqlDateTime(runAt)}', 1, '${status}', 1)`);
    });
  }
  await query(
    `INSERT INTO tasks (timer_id, app, run_at, timer_version, status, attempts) VALUES ${values.join(',')}`,
  );
}

const names = async () => (await partitions.list())!.map((p) => p.name);

beforeAll(async () => {
  stores = await createTestStores('history');
  partitions = new TaskPartitions(stores.database.pool);
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
});
afterAll(async () => {
  await stores.cleanup();
});

describe('the run history by day', () => {
  it('is partitioned by day from the migration on', async () => {
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    expect(await names()).toEqual([`p${today}`, 'p_future']);
  });

  it('adds days ahead, drops the days past retention, and keeps their failures longer, still listed', async () => {
    const history = new HistoryRetention(
      partitions,
      { retentionDays: 3, failedRetentionDays: 5, aheadDays: 2 },
      createLogger('silent'),
    );
    // 2030-01-01: the days back to the retention and two ahead; the first takes the gap since the migration.
    const first = await history.run(at('2030-01-01T00:30:00Z'));
    expect(first.added).toBe(6);
    expect((await names()).slice(-4)).toEqual(['p20300101', 'p20300102', 'p20300103', 'p_future']);

    await insertDays('2030-01-01T00:00:00Z', 8);
    // A pass every day, as the migrator's every 10 minutes would make, to 2030-01-08 12:00.
    const reports: RetentionReport[] = [];
    for (let d = 2; d <= 7; d++) reports.push(await history.run(at(`2030-01-0${d}T00:30:00Z`)));
    reports.push(await history.run(at('2030-01-08T12:00:00Z')));
    const sum = (k: keyof RetentionReport) => reports.reduce((n, r) => n + r[k], 0);
    // Runs before 01-05 12:00 are past 3 days: the days up to 01-04 went whole.
    expect(await names()).toEqual([
      'p20300105',
      'p20300106',
      'p20300107',
      'p20300108',
      'p20300109',
      'p20300110',
      'p_future',
    ]);
    expect(sum('added')).toBe(7);
    const live = await query<{ day: string }>(
      "SELECT DISTINCT DATE_FORMAT(run_at, '%Y-%m-%d') AS day FROM tasks ORDER BY day",
    );
    expect(live.map((r) => r.day)).toEqual(['2030-01-05', '2030-01-06', '2030-01-07', '2030-01-08']);
    // Failures are kept 5 days: those of 01-04 (after 01-03 12:00) remain, older ones are purged.
    expect(sum('failuresKept')).toBe(8);
    expect(sum('failuresPurged')).toBe(6);
    const kept = await query<{ status: string; run_at: Date }>(
      'SELECT status, run_at FROM task_failures ORDER BY run_at',
    );
    expect(kept.map((r) => [r.status, r.run_at.toISOString()])).toEqual([
      ['failed', '2030-01-04T10:00:01.000Z'],
      ['missed', '2030-01-04T10:00:02.000Z'],
    ]);

    // The timer's runs: the live ones and the kept failures, newest first, counted alike.
    const listed = await tasks.listForTimer({ timerId: 1, limit: 100 });
    expect(listed).toHaveLength(4 * 3 + 2);
    expect(listed.at(-1)).toMatchObject({ status: 'failed', runAt: at('2030-01-04T10:00:01Z') });
    expect(listed.map((t) => t.runAt)).toEqual([...listed.map((t) => t.runAt)].sort((a, b) => b - a));
    expect(await tasks.countForTimer(1)).toBe(14);
    const failedOnly = await tasks.listForTimer({ timerId: 1, statuses: ['failed'], limit: 100 });
    expect(failedOnly).toHaveLength(5);
    expect(await tasks.countForTimer(1, ['failed'])).toBe(5);
    // The failed-runs page too, paged on (run_at, id) across both tables.
    const page1 = await tasks.listByStatus({ status: 'failed', limit: 3 });
    const last = page1.at(-1)!;
    const page2 = await tasks.listByStatus({
      status: 'failed',
      before: { runAt: last.runAt, id: last.rowId },
      limit: 3,
    });
    expect([...page1, ...page2].map((t) => new Date(t.runAt).toISOString().slice(0, 10))).toEqual([
      '2030-01-08',
      '2030-01-07',
      '2030-01-06',
      '2030-01-05',
      '2030-01-04',
    ]);
  });

  it('does nothing more when run again, and lists a failure copied but not yet dropped once', async () => {
    const history = new HistoryRetention(
      partitions,
      { retentionDays: 3, failedRetentionDays: 5, aheadDays: 2 },
      createLogger('silent'),
    );
    expect(await history.run(at('2030-01-08T12:30:00Z'))).toEqual({
      added: 0,
      dropped: 0,
      failuresKept: 0,
      failuresPurged: 0,
    });
    // A pass that died between its copy and its drop: the copy is done twice, listed once.
    await partitions.keepFailures('p20300105');
    await partitions.keepFailures('p20300105');
    expect(await tasks.listForTimer({ timerId: 1, statuses: ['failed', 'missed'], limit: 100 })).toHaveLength(
      4 * 2 + 2,
    );
    // And counted once, and copied again as it is now.
    expect(await tasks.countForTimer(1, ['failed', 'missed'])).toBe(4 * 2 + 2);
    const failedAt = at('2030-01-05T10:00:01Z');
    await query("UPDATE tasks SET error = 'its answer, later' WHERE timer_id = 1 AND run_at = ?", [
      sqlDateTime(failedAt),
    ]);
    await partitions.keepFailures('p20300105');
    const [copy] = await query<{ error: string }>(
      'SELECT error FROM task_failures WHERE timer_id = 1 AND run_at = ?',
      [sqlDateTime(failedAt)],
    );
    expect(copy?.error).toBe('its answer, later');
    // A kept failure is read as a run of the history.
    expect(await tasks.findInHistory(1, at('2030-01-04T10:00:01Z'))).toMatchObject({ status: 'failed' });
    // A deleted timer leaves no kept failures behind either.
    await tasks.deleteAllForTimer(1);
    expect(await tasks.countForTimer(1)).toBe(0);
  });
});

describe('migration 0009', () => {
  const name = uniqueName('mig8');
  const url = `${MYSQL_SERVER}/${name}`;
  let tmp: string;

  beforeAll(() => {
    // The migrations as they were before 0009.
    tmp = mkdtempSync(join(tmpdir(), 'xtimer-migrations-'));
    cpSync(MIGRATIONS_FOLDER, tmp, { recursive: true });
    const journal = JSON.parse(readFileSync(join(tmp, 'meta/_journal.json'), 'utf8')) as {
      entries: Array<{ tag: string }>;
    };
    journal.entries = journal.entries.filter((e) => e.tag < '0009');
    writeFileSync(join(tmp, 'meta/_journal.json'), JSON.stringify(journal));
  });
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await dropDatabase(name);
  });

  it('moves an existing run history onto the day partitions, every row and id kept', async () => {
    const server = await mysql.createConnection(MYSQL_SERVER);
    await server.query(`CREATE DATABASE \`${name}\``);
    await server.end();
    const conn = await mysql.createConnection(url);
    try {
      await migrate(drizzle(conn), { migrationsFolder: tmp });
      const values = Array.from(
        { length: 500 },
        (_, i) => `(${1 + (i % 5)}, 'app', '${sqlDateTime(Date.now() - i * 3600_000)}', 1, 'succeeded', 1)`,
      );
      await conn.query(
        `INSERT INTO tasks (timer_id, app, run_at, timer_version, status, attempts) VALUES ${values.join(',')}`,
      );
      const [before] = await conn.query('SELECT id, timer_id, run_at, status FROM tasks ORDER BY id');

      await prepareDatabase(url);

      const [after] = await conn.query('SELECT id, timer_id, run_at, status FROM tasks ORDER BY id');
      expect(after).toEqual(before);
      const [parts] = await conn.query(
        `SELECT PARTITION_NAME AS name, TABLE_ROWS AS n FROM information_schema.PARTITIONS
          WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'tasks' ORDER BY PARTITION_ORDINAL_POSITION`,
        [name],
      );
      expect((parts as Array<{ name: string }>).map((p) => p.name)).toEqual([
        `p${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`,
        'p_future',
      ]);
      // The run's identity still holds: the same timer and instant cannot be planned twice.
      const [dup] = await conn.query(
        `INSERT IGNORE INTO tasks (timer_id, app, run_at) SELECT timer_id, app, run_at FROM tasks LIMIT 1`,
      );
      expect((dup as { affectedRows: number }).affectedRows).toBe(0);
    } finally {
      await conn.end();
    }
  });
});
