import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * Outside a transaction a run write that deadlocked is sent again (it is fenced, so that
 * is safe). Inside one the deadlock rolled the whole transaction back: sending the
 * statement again ran it on its own, and the transaction's earlier writes were lost.
 */
const T0 = Date.UTC(2030, 0, 1, 12);

let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores('runlocks');
  const runs = [1, 2].map((timerId) => ({ timerId, app: 'a', runAt: T0, version: 1 }));
  await new TaskRepository(stores.database.db, stores.database.pool).insertRuns(runs);
});
afterAll(async () => {
  await stores.cleanup();
});

const outcome = (timerId: number, output: string) => ({
  timerId,
  runAt: T0,
  status: 'succeeded' as const,
  attempts: 1,
  httpStatus: 200,
  output,
  error: null,
  firedAt: T0 + 5,
  durationMs: 3,
  leaseUntil: null,
});

describe("a transaction's run writes that deadlock", () => {
  it('are run again as a whole transaction, so each side lands whole', async () => {
    let tries = 0;
    let arrived = 0;
    let bothLocked!: () => void;
    const firstLocks = new Promise<void>((r) => {
      bothLocked = r;
    });
    const side = (first: number, second: number, output: string) =>
      stores.database.transaction(async (tx) => {
        tries++;
        const tasks = new TaskRepository(tx.db, tx.conn, true);
        await tasks.recordOutcomes([outcome(first, output)]);
        if (++arrived === 2) bothLocked();
        await firstLocks;
        await tasks.recordOutcomes([outcome(second, output)]);
      });
    await Promise.all([side(1, 2, 'A'), side(2, 1, 'B')]);

    expect(tries).toBeGreaterThan(2);
    const [rows] = await stores.database.pool.query('SELECT output FROM tasks ORDER BY timer_id');
    const outputs = (rows as Array<{ output: string }>).map((r) => r.output);
    // The side run again wrote both runs after the other committed.
    expect(outputs[0]).toBe(outputs[1]);
  });
});
