import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/mysql2';
import { migrate } from 'drizzle-orm/mysql2/migrator';
import mysql from 'mysql2/promise';
import { poolOptions, SESSION_SETTINGS } from './client.js';
import { leavesHost, parseMysqlUrl } from './mysql-url.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Creates the database if missing and applies the committed migrations, on the first host
 * of the URL's list that answers (a Galera node out of quorum does not: see isNodeNotReady); returns that host's place in the list, for the pool to
 * start on. Safe when several processes start at once: the work runs under a MySQL named
 * lock (GET_LOCK holds on that one server only: docs/operating.md says what that means under Galera).
 */
export async function prepareDatabase(url: string): Promise<number> {
  const hosts = parseMysqlUrl(url).hosts.length;
  for (let i = 0; ; i++) {
    try {
      await prepareOn(url, i);
      return i;
    } catch (err) {
      if (i + 1 >= hosts || !leavesHost(err)) throw err;
    }
  }
}

async function prepareOn(url: string, hostIndex: number): Promise<void> {
  const opts = poolOptions(url, {}, hostIndex);
  const database = String(opts.database);
  const { database: _db, connectionLimit: _limit, enableKeepAlive: _ka, ...serverOnly } = opts;
  const conn = await mysql.createConnection(serverOnly);
  try {
    await conn.query(SESSION_SETTINGS);
    const [rows] = await conn.query('SELECT GET_LOCK(?, 60) AS ok', [`xtimer_migrate:${database}`]);
    if ((rows as Array<{ ok: number | null }>)[0]?.ok !== 1) {
      throw new Error(`could not take the migration lock for database ${database} within 60 s`);
    }
    try {
      await conn.query(
        `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
      // USE, not changeUser: COM_CHANGE_USER resets the session and with it the named
      // lock, and two processes starting together would both run the migrations.
      await conn.query(`USE \`${database}\``);
      await migrate(drizzle(conn), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await conn.query('SELECT RELEASE_LOCK(?)', [`xtimer_migrate:${database}`]);
    }
  } finally {
    await conn.end();
  }
}
