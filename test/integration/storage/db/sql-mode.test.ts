import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, SQL_MODE } from '../../../../src/storage/db/client.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { createTestStores, MYSQL_SERVER, type TestStores } from '../../../helpers/stores.js';

/**
 * The raw hot paths escape values on the client, with backslashes: under a server whose
 * sql_mode includes NO_BACKSLASH_ESCAPES a quote so escaped ends the string instead. Every
 * connection pins its mode, so what the server's default says does not matter.
 *
 * Most cases leave the server's own default alone (other test files share the server): each
 * new session is put into NO_BACKSLASH_ESCAPES by a listener that runs before the pool's own,
 * which is what a server whose global mode includes it does to every session. One sets the
 * global mode for as long as it takes a pool to open its connection, and restores it.
 */

let stores: TestStores;
let database: Database;

beforeAll(async () => {
  stores = await createTestStores('sqlmode');
  database = openDatabase(stores.config.mysqlUrl, { connectionLimit: 3 });
  database.pool.pool.prependListener('connection', (conn) => {
    conn.query("SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES,ANSI_QUOTES')");
  });
});
afterAll(async () => {
  await database.close();
  await stores.cleanup();
});

const sessionMode = async (query: (sql: string) => Promise<[unknown, unknown]>) => {
  const [rows] = await query('SELECT @@SESSION.sql_mode AS mode');
  return (rows as Array<{ mode: string }>)[0]!.mode;
};

/** A string that breaks a literal escaped with backslashes when the server reads them literally. */
const AWKWARD = `it's a \\' trap\\\\'); DROP TABLE timers; -- "quoted" \\n`;

describe('sql_mode, pinned per connection', () => {
  it('is the pinned mode on every connection, whatever the session started with', async () => {
    const modes = await Promise.all([1, 2, 3].map(() => sessionMode((sql) => database.pool.query(sql))));
    await database.transaction(async (tx) => {
      modes.push(await sessionMode((sql) => tx.conn.query(sql)));
    });
    for (const mode of modes) {
      expect(mode).toBe(SQL_MODE);
      expect(mode).not.toContain('NO_BACKSLASH_ESCAPES');
    }
  });

  it('round-trips quotes and backslashes through the raw escaped SQL of runs and outcomes', async () => {
    const tasks = new TaskRepository(database.db, database.pool);
    const runAt = Date.UTC(2030, 0, 1, 12);
    await tasks.insertRuns([{ timerId: 1, app: AWKWARD, runAt, version: 1 }]);
    await database.transaction(async (tx) => {
      await tasks.withDb(tx.db, tx.conn).insertRuns([{ timerId: 2, app: AWKWARD, runAt, version: 1 }]);
    });
    await tasks.recordOutcomes(
      [1, 2].map((timerId) => ({
        timerId,
        runAt,
        status: 'failed' as const,
        attempts: 1,
        httpStatus: 500,
        output: AWKWARD,
        error: `${AWKWARD} (error)`,
        firedAt: runAt + 3,
        durationMs: 3,
        leaseUntil: null,
      })),
    );
    const [rows] = await database.pool.query(
      'SELECT timer_id, app, status, output, error FROM tasks ORDER BY timer_id',
    );
    expect(rows).toEqual(
      [1, 2].map((timerId) => ({
        timer_id: timerId,
        app: AWKWARD,
        status: 'failed',
        output: AWKWARD,
        error: `${AWKWARD} (error)`,
      })),
    );
    const [timers] = await database.pool.query('SELECT COUNT(*) AS n FROM timers');
    expect((timers as Array<{ n: number }>)[0]!.n).toBe(0);
  });

  it('holds on a server whose global mode includes NO_BACKSLASH_ESCAPES', async () => {
    const admin = await mysql.createConnection(MYSQL_SERVER);
    const [[before]] = (await admin.query('SELECT @@GLOBAL.sql_mode AS mode')) as unknown as [
      [{ mode: string }],
    ];
    let opened: Database;
    try {
      await admin.query("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')");
      opened = openDatabase(stores.config.mysqlUrl, { connectionLimit: 1 });
      // The session starts from the global mode as it is now.
      await opened.pool.query('SELECT 1');
    } finally {
      await admin.query('SET GLOBAL sql_mode = ?', [before.mode]);
      await admin.end();
    }
    try {
      expect(await sessionMode((sql) => opened.pool.query(sql))).toBe(SQL_MODE);
      const runAt = Date.UTC(2030, 0, 2, 12);
      await new TaskRepository(opened.db, opened.pool).insertRuns([
        { timerId: 3, app: AWKWARD, runAt, version: 1 },
      ]);
      const [rows] = await opened.pool.query('SELECT app FROM tasks WHERE timer_id = 3');
      expect(rows).toEqual([{ app: AWKWARD }]);
    } finally {
      await opened.close();
    }
  });
});
