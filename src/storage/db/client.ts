import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import mysql, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2/promise';
import * as schema from './schema.js';

export type Db = MySql2Database<typeof schema>;

export interface Database {
  /** drizzle, for the schema's ordinary queries. */
  db: Db;
  /** The raw pool, for batched SQL on hot paths. */
  pool: Pool;
  /** Runs `fn` in a transaction on one connection; drizzle and raw SQL both see it. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Transaction {
  db: Db;
  conn: PoolConnection;
}

export function poolOptions(url: string, extra: PoolOptions = {}): PoolOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    database: u.pathname.replace(/^\//, ''),
    // DATETIME columns hold UTC; read and write them as UTC whatever the host's zone.
    timezone: 'Z',
    supportBigNumbers: true,
    connectionLimit: 20,
    enableKeepAlive: true,
    charset: 'utf8mb4_unicode_ci',
    ...extra,
  };
}

/** Opens the pool. Every session runs in UTC so CURRENT_TIMESTAMP(3) agrees with the app. */
export function openDatabase(url: string, extra: PoolOptions = {}): Database {
  const pool = mysql.createPool(poolOptions(url, extra));
  pool.pool.on('connection', (conn) => {
    conn.query("SET time_zone = '+00:00'");
  });
  return {
    db: drizzle(pool, { schema, mode: 'default' }),
    pool,
    async transaction(fn) {
      const conn = await pool.getConnection();
      try {
        await conn.beginTransaction();
        const result = await fn({ db: drizzle(conn, { schema, mode: 'default' }), conn });
        await conn.commit();
        return result;
      } catch (err) {
        await conn.rollback().catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
    },
    close: () => pool.end(),
  };
}
