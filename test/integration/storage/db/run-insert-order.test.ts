import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../../src/storage/db/client.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * Runs are stored in the order they are inserted (the primary key leads with an
 * auto-increment id). A second's outcomes are written together, so its runs must sit
 * together: planned timer by timer, they sat a page per timer apart, and at 5,000 timers
 * each second's outcomes touched more pages than MySQL's default buffer pool holds.
 */

const T0 = Date.UTC(2030, 0, 1, 12);

let stores: TestStores;
let database: Database;

beforeAll(async () => {
  stores = await createTestStores('runorder');
  database = openDatabase(stores.config.mysqlUrl, { connectionLimit: 3 });
});
afterAll(async () => {
  await database.close();
  await stores.cleanup();
});

async function storedOrder(): Promise<Array<{ timerId: number; runAt: number }>> {
  const [rows] = await database.pool.query('SELECT timer_id, run_at FROM tasks ORDER BY id');
  return (rows as Array<{ timer_id: number; run_at: Date }>).map((r) => ({
    timerId: Number(r.timer_id),
    runAt: r.run_at.getTime(),
  }));
}

describe('inserting runs', () => {
  it('stores them in run-time order, whatever order they were planned in', async () => {
    const planned = [];
    for (let timerId = 1; timerId <= 30; timerId++)
      for (let k = 0; k < 200; k++) planned.push({ timerId, app: 'a', runAt: T0 + k * 1000, version: 1 });
    // Three statements at once: each holds a stretch of time, not a few timers.
    await new TaskRepository(database.db, database.pool).insertRuns(planned, 3);

    const stored = await storedOrder();
    expect(stored).toHaveLength(planned.length);
    const byTime = [...planned]
      .sort((a, b) => a.runAt - b.runAt || a.timerId - b.timerId)
      .map(({ timerId, runAt }) => ({ timerId, runAt }));
    // Statements run in parallel may take their ids in any order: within each, run-time order.
    const statementOf = (i: number) => Math.floor(i / 2000);
    const sorted = [...stored].sort((a, b) => a.runAt - b.runAt || a.timerId - b.timerId);
    expect(sorted).toEqual(byTime);
    for (let i = 1; i < stored.length; i++) {
      if (statementOf(i) !== statementOf(i - 1)) continue;
      expect(stored[i]!.runAt).toBeGreaterThanOrEqual(stored[i - 1]!.runAt);
    }
  });
});
