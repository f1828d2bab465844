import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../../src/storage/db/client.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * A timer's runs are listed a page at a time (the console lists the latest few of each
 * timer on its page). The list reads the run history and the failures kept past it as one
 * UNION; MariaDB does not take the outer LIMIT into its parts, so each part read all of the
 * timer's runs, sorted them and kept ten: an every-second timer's hour of runs for each
 * timer on the console's page, every time it loaded. The test counts the index entries the
 * session read, so it holds at any table size.
 */

const TIMER = 7;
/** An every-second timer's history: well past any page. */
const RUNS = 3000;
const T0 = Date.UTC(2030, 0, 1, 12);
const LIMIT = 10;
/**
 * A page from each day partition the range may reach, with room: reading the timer's
 * whole history reads RUNS entries at least.
 */
const AT_MOST = RUNS / 5;
/** A failed run kept past the history, between the latest two. */
const FAILED_AT = T0 + (RUNS - 2) * 1000 + 500;

let stores: TestStores;
let database: Database;

beforeAll(async () => {
  stores = await createTestStores('runlist');
  database = openDatabase(stores.config.mysqlUrl, { connectionLimit: 2 });
  const runs = [];
  for (let k = 0; k < RUNS; k++) runs.push({ timerId: TIMER, app: 'list', runAt: T0 + k * 1000, version: 1 });
  // Another timer's runs around it, as in any table.
  for (let k = 0; k < RUNS; k++)
    runs.push({ timerId: TIMER + 1, app: 'list', runAt: T0 + k * 1000, version: 1 });
  await new TaskRepository(database.db, database.pool).insertRuns(runs);
  // Failed runs kept past the history: one on the latest page, one older.
  await database.pool.query(
    `INSERT INTO task_failures (id, timer_id, app, run_at, timer_version, status, attempts, error)
     VALUES (900001, ?, 'list', ?, 1, 'failed', 1, 'kept'), (900002, ?, 'list', ?, 1, 'failed', 1, 'kept')`,
    [TIMER, new Date(FAILED_AT), TIMER, new Date(T0 + 10_500)],
  );
});
afterAll(async () => {
  await database.close();
  await stores.cleanup();
});

/** What `list` returned and how many index entries the session read for it. */
async function measured<T>(list: (tasks: TaskRepository) => Promise<T>): Promise<{ read: number; value: T }> {
  return database.transaction(async (tx) => {
    const reads = async () => {
      const [rows] = await tx.conn.query("SHOW SESSION STATUS LIKE 'Handler_read%'");
      return (rows as Array<{ Value: string }>).reduce((sum, r) => sum + Number(r.Value), 0);
    };
    const before = await reads();
    const value = await list(new TaskRepository(tx.db, tx.conn));
    return { read: (await reads()) - before, value };
  });
}

describe("a timer's runs listed a page at a time", () => {
  it('reads the latest page, about as many entries as it returns', async () => {
    const { read, value } = await measured((tasks) =>
      tasks.listForTimer({ timerId: TIMER, beforeMs: T0 + RUNS * 1000, limit: LIMIT }),
    );
    // Newest first, the kept failure among them.
    const latest = [T0 + (RUNS - 1) * 1000, FAILED_AT];
    for (let i = 2; i < LIMIT; i++) latest.push(T0 + (RUNS - i) * 1000);
    expect(value.map((t) => t.runAt)).toEqual(latest);
    expect(value[1]?.status).toBe('failed');
    expect(read).toBeLessThan(AT_MOST);
  });

  it('reads the runs to come from their start, soonest first', async () => {
    const { read, value } = await measured((tasks) =>
      tasks.listForTimer({ timerId: TIMER, afterMs: T0 + 99_000, ascending: true, limit: LIMIT }),
    );
    expect(value.map((t) => t.runAt)).toEqual(Array.from({ length: LIMIT }, (_, i) => T0 + (100 + i) * 1000));
    expect(read).toBeLessThan(AT_MOST);
  });

  it('reads an offset page up to its end only', async () => {
    const { read, value } = await measured((tasks) =>
      tasks.listForTimer({ timerId: TIMER, limit: LIMIT, offset: 2 * LIMIT }),
    );
    // The kept failure is among the 20 runs before the page.
    expect(value.map((t) => t.runAt)).toEqual(
      Array.from({ length: LIMIT }, (_, i) => T0 + (RUNS - 2 * LIMIT - i) * 1000),
    );
    expect(read).toBeLessThan(AT_MOST);
  });
});
