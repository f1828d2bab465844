import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import type { RunOutcome } from '../../../../src/storage/db/tasks/task-rows.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * A batch of outcomes reaches MySQL as one UPDATE joined to its rows: on MariaDB a table
 * value constructor, on MySQL a SELECT a row. Both spellings run on MariaDB, so both are
 * checked here against the same batch: a MySQL server is told apart by its version alone.
 */

let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores('outrows');
});
afterAll(async () => {
  await stores.cleanup();
});

/** The pool, keeping each statement in `sent`; as MySQL 8 answers the version question if `mysql`. */
function watched(pool: Pool, sent: string[], mysql = false): Pick<Pool, 'query' | 'escape'> {
  return {
    escape: (v: unknown) => pool.escape(v),
    query: ((sql: string, ...rest: unknown[]) => {
      sent.push(sql);
      return mysql && sql.startsWith('SELECT VERSION()')
        ? Promise.resolve([[{ v: '8.4.0' }], []])
        : (pool.query as (...a: unknown[]) => unknown)(sql, ...rest);
    }) as Pool['query'],
  };
}

const runAt = Date.UTC(2030, 0, 1, 12);

/** Outcomes whose first row leaves columns NULL that later rows fill, and the reverse. */
function batch(firstTimer: number): RunOutcome[] {
  const base = { runAt, output: null, error: null, firedAt: null, durationMs: null, leaseUntil: null };
  return [
    {
      ...base,
      timerId: firstTimer,
      status: 'running',
      attempts: 1,
      httpStatus: null,
      leaseUntil: runAt + 60_000,
    },
    {
      ...base,
      timerId: firstTimer + 1,
      status: 'succeeded',
      attempts: 1,
      httpStatus: 200,
      output: 'ok, "fine"',
      firedAt: runAt + 4,
      durationMs: 12,
      answers: { attempt: 1, headers: { 'content-type': 'text/plain' }, bodyBytes: 10 },
    },
    {
      ...base,
      timerId: firstTimer + 2,
      status: 'failed',
      attempts: 3,
      httpStatus: 503,
      error: "it's down",
      firedAt: runAt + 9,
      durationMs: 5,
    },
    { ...base, timerId: firstTimer + 3, status: 'skipped', attempts: 0, httpStatus: null, error: 'paused' },
  ] as RunOutcome[];
}

async function rowsOf(firstTimer: number): Promise<unknown[]> {
  const [rows] = await stores.database.pool.query(
    `SELECT timer_id - ? AS n, status, attempts, http_status, output, error, fired_at, first_fired_at,
            duration_ms, lease_until, answer_log
       FROM tasks WHERE timer_id BETWEEN ? AND ? ORDER BY timer_id`,
    [firstTimer, firstTimer, firstTimer + 3],
  );
  return rows as unknown[];
}

describe('a batch of run outcomes', () => {
  it('lands alike spelt as MariaDB value rows and as MySQL SELECTs', async () => {
    const { db, pool } = stores.database;
    const runs = (first: number) =>
      [0, 1, 2, 3].map((n) => ({ timerId: first + n, app: 'outrows', runAt, version: 1 }));
    await new TaskRepository(db, pool).insertRuns([...runs(10), ...runs(20)]);

    const toMaria: string[] = [];
    const toMySql: string[] = [];
    await new TaskRepository(db, watched(pool as unknown as Pool, toMaria)).recordOutcomes(batch(10));
    await new TaskRepository(db, watched(pool as unknown as Pool, toMySql, true)).recordOutcomes(batch(20));
    expect(toMaria.at(-1)).toContain('UNION ALL VALUES (');
    expect(toMySql.at(-1)).not.toContain('VALUES');

    const maria = await rowsOf(10);
    expect(maria).toHaveLength(4);
    expect(maria).toMatchObject([
      { n: 0, status: 'running', http_status: null, lease_until: new Date(runAt + 60_000) },
      { n: 1, status: 'succeeded', http_status: 200, output: 'ok, "fine"', duration_ms: 12 },
      { n: 2, status: 'failed', attempts: 3, error: "it's down", first_fired_at: new Date(runAt + 9) },
      { n: 3, status: 'skipped', attempts: 0, error: 'paused', fired_at: null },
    ]);
    expect(JSON.parse((maria[1] as { answer_log: string }).answer_log)).toMatchObject({ bodyBytes: 10 });
    expect(await rowsOf(20)).toEqual(maria);
  });

  it('writes a single outcome, which has no rows after its first', async () => {
    const { db, pool } = stores.database;
    await new TaskRepository(db, pool).insertRuns([{ timerId: 30, app: 'outrows', runAt, version: 1 }]);
    await new TaskRepository(db, pool).recordOutcomes(
      batch(30)
        .slice(1, 2)
        .map((o) => ({ ...o, timerId: 30 })),
    );
    const [rows] = await pool.query('SELECT status, attempts FROM tasks WHERE timer_id = 30');
    expect(rows).toEqual([{ status: 'succeeded', attempts: 1 }]);
  });
});
