import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * Two transactions that lock the same rows in opposite orders deadlock; MySQL rolls one
 * back. That one is tried again, so both changes land and neither caller sees an error.
 */
let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores('txretry');
  await stores.database.pool.query('CREATE TABLE pair (id INT PRIMARY KEY, n INT NOT NULL)');
  await stores.database.pool.query('INSERT INTO pair VALUES (1, 0), (2, 0)');
});
afterAll(async () => {
  await stores.cleanup();
});

describe('a transaction that deadlocks', () => {
  it('is tried again, and both sides of the deadlock land', async () => {
    let tries = 0;
    let bothLocked!: () => void;
    let arrived = 0;
    const firstLocks = new Promise<void>((r) => {
      bothLocked = r;
    });
    const side = (first: number, second: number) =>
      stores.database.transaction(async (tx) => {
        tries++;
        await tx.conn.query('UPDATE pair SET n = n + 1 WHERE id = ?', [first]);
        if (++arrived === 2) bothLocked();
        await firstLocks;
        await tx.conn.query('UPDATE pair SET n = n + 1 WHERE id = ?', [second]);
      });
    await Promise.all([side(1, 2), side(2, 1)]);
    expect(tries).toBeGreaterThan(2);
    const [rows] = await stores.database.pool.query('SELECT id, n FROM pair ORDER BY id');
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });
});
