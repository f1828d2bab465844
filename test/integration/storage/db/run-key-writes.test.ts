import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../../src/storage/db/client.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * Writes to runs named by their keys (a stop's skips and deletes, a sweep's `missed`) look
 * each run up by its key. Past 200 instants MariaDB estimates the status index from its
 * statistics, which say about one pending run an instant where most runs are spread out;
 * where many timers share the instants (a cron's whole minute, 8,000 timers on one second)
 * it then read every pending run at each one: two minutes at 1.8 million rows. The test
 * counts the index entries the session read, so it holds at any table size.
 */

/** Timers sharing every one of INSTANTS (more than MariaDB's 200 index dives). */
const TIMERS = 40;
const INSTANTS = 250;
/** Runs spread one to an instant, as most are: the statistics' view of the table. */
const SPREAD = 40_000;
const T0 = Date.UTC(2030, 0, 1, 12);
/** Four timers' runs a statement: 1,000 keys at 250 instants. */
const NAMED = 4;

let stores: TestStores;
let database: Database;

beforeAll(async () => {
  stores = await createTestStores('runkeys');
  database = openDatabase(stores.config.mysqlUrl, { connectionLimit: 2 });
  const runs = [];
  for (let timerId = 1; timerId <= TIMERS; timerId++)
    for (let k = 0; k < INSTANTS; k++)
      runs.push({ timerId, app: 'shared', runAt: T0 + k * 1000, version: 1 });
  for (let k = 0; k < SPREAD; k++)
    runs.push({ timerId: 1000 + (k % 100), app: 'spread', runAt: T0 + 3_600_000 + k * 7, version: 1 });
  await new TaskRepository(database.db, database.pool).insertRuns(runs);
  await database.pool.query('ANALYZE TABLE tasks');
});
afterAll(async () => {
  await database.close();
  await stores.cleanup();
});

/** The rows the session's handlers read while `write` ran, and the statuses it left on the first timer's runs. */
async function measured(timerId: number, write: (tasks: TaskRepository) => Promise<void>) {
  return database.transaction(async (tx) => {
    const reads = async () => {
      const [rows] = await tx.conn.query("SHOW SESSION STATUS LIKE 'Handler_read%'");
      return (rows as Array<{ Value: string }>).reduce((sum, r) => sum + Number(r.Value), 0);
    };
    const before = await reads();
    await write(new TaskRepository(tx.db, tx.conn));
    const read = (await reads()) - before;
    const [rows] = await tx.conn.query('SELECT status, error FROM tasks WHERE timer_id = ?', [timerId]);
    return { read, rows: rows as Array<{ status: string; error: string | null }> };
  });
}

const runsOf = (timerId: number) =>
  Array.from({ length: INSTANTS }, (_, k) => ({ timerId, runAt: T0 + k * 1000 }));
/** NAMED timers' runs from `first` on. */
const named = (first: number) => Array.from({ length: NAMED }, (_, i) => runsOf(first + i)).flat();
/** A few index reads a run named; the status index would read every shared timer's run at the named instants, 10,000. */
const AT_MOST = NAMED * INSTANTS * 5;

describe('writes to runs by their keys', () => {
  it('skip only the named runs, reading about as many index entries as runs named', async () => {
    const { read, rows } = await measured(1, (tasks) => tasks.skipEach(named(1), 'skipped: test'));
    expect(rows).toEqual(runsOf(1).map(() => ({ status: 'skipped', error: 'skipped: test' })));
    expect(read).toBeLessThan(AT_MOST);
  });

  it('delete only the named runs the same way', async () => {
    const { read, rows } = await measured(5, (tasks) => tasks.deletePendingRuns(named(5)));
    expect(rows).toEqual([]);
    expect(read).toBeLessThan(AT_MOST);
  });

  it("settle a sweep's uncalled runs the same way", async () => {
    const { read, rows } = await measured(9, (tasks) => tasks.settleUncalled(named(9), 'missed', 'late'));
    expect(rows).toEqual(runsOf(9).map(() => ({ status: 'missed', error: 'late' })));
    expect(read).toBeLessThan(AT_MOST);
    const [left] = await database.pool.query(
      "SELECT COUNT(*) AS n FROM tasks WHERE status = 'pending' AND app = 'shared'",
    );
    expect(Number((left as Array<{ n: number }>)[0]!.n)).toBe((TIMERS - 3 * NAMED) * INSTANTS);
  });
});
