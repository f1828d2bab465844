import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../../src/storage/db/client.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import type { RunOutcome } from '../../../../src/storage/db/tasks/task-rows.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * The executor's outcome writes take their rows' locks in key order, as the late sweep's
 * and the stops' statements do (a range over the sorted key list). In another order the
 * two deadlock, and InnoDB rolls back the one that wrote less: a sweep's or a stop's.
 */

const T0 = Date.UTC(2030, 0, 1, 12);
const RUNS = 50;
const OTHERS = 20_000;

let stores: TestStores;
let database: Database;
let tasks: TaskRepository;

beforeAll(async () => {
  stores = await createTestStores('lockorder');
  database = openDatabase(stores.config.mysqlUrl, { connectionLimit: 4 });
  tasks = new TaskRepository(database.db, database.pool);
  await tasks.insertRuns(
    Array.from({ length: RUNS }, (_, k) => ({ timerId: 1, app: 'a', runAt: T0 + k * 1000, version: 1 })),
  );
  // Other timers' runs, so that the write looks its runs up by key, as in a real history,
  // instead of scanning a table as small as its batch.
  await tasks.insertRuns(
    Array.from({ length: OTHERS }, (_, k) => ({
      timerId: 2 + (k % 100),
      app: 'b',
      runAt: T0 + k,
      version: 1,
    })),
  );
  await database.pool.query('ANALYZE TABLE tasks');
});
afterAll(async () => {
  await database.close();
  await stores.cleanup();
});

const outcome = (runAt: number): RunOutcome => ({
  timerId: 1,
  runAt,
  status: 'succeeded',
  attempts: 1,
  httpStatus: 200,
  output: null,
  error: null,
  firedAt: runAt + 5,
  durationMs: 5,
  leaseUntil: null,
});

/**
 * Whether the outcome write has been running for a while: blocked at the rival's run.
 * (innodb_trx does not always list a transaction waiting for its first lock.)
 */
async function writeBlocked(): Promise<boolean> {
  const [rows] = await database.pool.query(
    "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE 'UPDATE tasks t JOIN%' AND time_ms > 300",
  );
  return Number((rows as Array<{ n: number }>)[0]!.n) > 0;
}

describe("the executor's outcome writes", () => {
  it('lock in key order, so a rival locking the same runs in that order waits instead of deadlocking', async () => {
    const rival = await database.pool.getConnection();
    try {
      // The rival (a sweep's statement) holds the first run, and will want the last.
      await rival.query('BEGIN');
      await rival.query("UPDATE tasks SET error = 'rival' WHERE timer_id = 1 AND run_at = ?", [new Date(T0)]);
      // Outcomes buffered newest first: the last run's comes before the first's.
      const runAts = Array.from({ length: RUNS }, (_, k) => T0 + (RUNS - 1 - k) * 1000);
      const writing = tasks.recordOutcomes(runAts.map(outcome));
      const deadline = Date.now() + 10_000;
      while (!(await writeBlocked())) {
        if (Date.now() > deadline) throw new Error('the outcome write never waited for the rival');
        await new Promise((r) => setTimeout(r, 20));
      }
      // Taken in key order, the write waits at the first run holding nothing the rival wants.
      await rival.query("UPDATE tasks SET error = 'rival' WHERE timer_id = 1 AND run_at = ?", [
        new Date(T0 + (RUNS - 1) * 1000),
      ]);
      await rival.query('COMMIT');
      await writing;
    } finally {
      rival.release();
    }
    const [rows] = await database.pool.query(
      "SELECT COUNT(*) AS n FROM tasks WHERE timer_id = 1 AND status = 'succeeded'",
    );
    expect(Number((rows as Array<{ n: number }>)[0]!.n)).toBe(RUNS);
  });
});
