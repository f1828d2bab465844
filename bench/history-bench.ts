/**
 * Scenario 8: purging run history. A day of runs is one partition of `tasks`:
 * dropping it costs one DROP PARTITION whatever it holds. Beside it, the row deletes the
 * old purge made (DELETE … LIMIT 1,000 by status and time) on the same number of runs:
 * the rate a row purge can sustain, against the fire rate it must keep up with.
 */
import { randomBytes } from 'node:crypto';
import { DAY, partitionName } from '../src/domain/plan/day-partitions.js';
import { createLogger } from '../src/observability/logger.js';
import { HistoryRetention } from '../src/services/planning/history-retention.js';
import { openDatabase } from '../src/storage/db/client.js';
import { prepareDatabase } from '../src/storage/db/migrate.js';
import { sqlDateTime } from '../src/storage/db/multi-row-insert.js';
import { TaskPartitions } from '../src/storage/db/tasks/task-partitions.js';
import { dropDatabase, MYSQL_SERVER } from './harness.js';

/** A day of `runs` finished runs (spread over its seconds), 20,000 rows a statement. */
async function fillDay(query: (sql: string) => Promise<unknown>, dayMs: number, runs: number): Promise<void> {
  for (let i = 0; i < runs; i += 20_000) {
    const values: string[] = [];
    for (let j = i; j < Math.min(runs, i + 20_000); j++) {
      const runAt = dayMs + Math.floor((j / runs) * DAY);
      values.push(`(${1 + (j % 10_000)},'bench','${sqlDateTime(runAt)}',1,'succeeded',1,200,'ok')`);
    }
    await query(
      `INSERT IGNORE INTO tasks (timer_id,app,run_at,timer_version,status,attempts,http_status,output) VALUES ${values.join(',')}`,
    );
  }
}

export async function historyBench(runs: number) {
  const name = `xtbench_hist_${randomBytes(4).toString('hex')}`;
  const url = `${MYSQL_SERVER}/${name}`;
  await prepareDatabase(url);
  const database = openDatabase(url);
  const query = (sql: string) => database.pool.query(sql);
  try {
    const partitions = new TaskPartitions(database.pool);
    const history = new HistoryRetention(
      partitions,
      { retentionDays: 7, failedRetentionDays: 30, aheadDays: 2 },
      createLogger('silent'),
    );
    // Two days of runs, 2030-01-01 and 01-02, each in its own partition.
    const day1 = Date.UTC(2030, 0, 1);
    await history.run(day1 + 3600_000);
    await fillDay(query, day1, runs);
    await fillDay(query, day1 + DAY, runs);

    // The first day past TASK_RETENTION_DAYS: its partition goes, as HistoryRetention drops it.
    let began = performance.now();
    await partitions.keepFailures(partitionName(day1));
    await partitions.drop(partitionName(day1));
    const dropMs = performance.now() - began;

    // The same number of runs deleted as the row purge did: 1,000 at a time.
    began = performance.now();
    let deleted = 0;
    for (;;) {
      const [result] = await database.pool.query(
        "DELETE FROM tasks WHERE status = 'succeeded' AND run_at < ? LIMIT 1000",
        [new Date(day1 + 2 * DAY)],
      );
      const n = (result as { affectedRows: number }).affectedRows;
      deleted += n;
      if (n < 1000) break;
    }
    const deleteSeconds = (performance.now() - began) / 1000;
    const rowsPerSecond = Math.round(deleted / deleteSeconds);
    process.stdout.write(
      `  8: history purge: a day of ${runs} runs dropped in ${Math.round(dropMs)} ms (one DROP PARTITION, ` +
        `whatever its size); the same runs deleted row by row: ${deleteSeconds.toFixed(1)} s = ${rowsPerSecond} runs/s\n`,
    );
    return { runs, dropMs: Math.round(dropMs), deleted, deleteSeconds, rowsPerSecond };
  } finally {
    await database.close();
    await dropDatabase(name);
  }
}
