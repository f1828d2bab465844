import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import { format } from 'mysql2';
import mysql, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2/promise';
import type { ConnectionLog } from '../../observability/connection-log.js';
import { hostLabel, isConnectionFailure, isNodeNotReady, parseMysqlUrl } from './mysql-url.js';

/** drizzle without the relational query API (unused): building its schema map costs ~50 µs a transaction. */
export type Db = MySql2Database;

export interface Database {
  /** drizzle, for the schema's ordinary queries. */
  db: Db;
  /** The raw pool, for batched SQL on hot paths. */
  pool: Pool;
  /**
   * Runs `fn` in a transaction on one connection; drizzle and raw SQL both see it. After
   * a deadlock `fn` runs again in a new transaction: it must do nothing outside it that
   * cannot be done twice.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Transaction {
  db: Db;
  conn: PoolConnection;
}

/**
 * The SQL mode every session runs in, whatever the server's default. The raw hot paths
 * escape values on the client (pool.escape: backslash escapes), which the server reads
 * as meant only without NO_BACKSLASH_ESCAPES; ANSI_QUOTES or PIPES_AS_CONCAT would
 * change what our SQL means too. So the mode is named in full, not patched.
 */
export const SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/** Run first on every connection: UTC (CURRENT_TIMESTAMP(3) agrees with the app) and SQL_MODE. */
export const SESSION_SETTINGS = `SET time_zone = '+00:00', sql_mode = '${SQL_MODE}'`;

/** Options for the URL's `hostIndex`th host (a URL may list several: `h1:p1,h2:p2`). */
export function poolOptions(url: string, extra: PoolOptions = {}, hostIndex = 0): PoolOptions {
  const target = parseMysqlUrl(url);
  const host = target.hosts[hostIndex % target.hosts.length] ?? target.hosts[0];
  return {
    host: host?.host ?? '127.0.0.1',
    port: host?.port ?? 3306,
    user: target.user,
    password: target.password,
    database: target.database,
    // DATETIME columns hold UTC; read and write them as UTC whatever the host's zone.
    timezone: 'Z',
    supportBigNumbers: true,
    connectionLimit: 20,
    enableKeepAlive: true,
    charset: 'utf8mb4_unicode_ci',
    queryFormat: formatQuery,
    ...extra,
  };
}

/**
 * mysql2's own query formatting, except that SQL without values is sent as it is: mysql2
 * scans every statement for placeholders even when it has no values, and that scan of a
 * raw multi-row INSERT (hundreds of KB on the create path) cost as much as building it.
 */
function formatQuery(this: { config: { timezone?: string } }, sql: string, values: unknown): string {
  if (values === undefined || values === null || (Array.isArray(values) && values.length === 0)) return sql;
  return format(sql, values as never, false, this.config.timezone);
}

/**
 * A read on the pool gives up after this long, and its connection is dropped: a
 * half-open connection (a failover that left no RST) must not hold a caller for good.
 */
export const READ_TIMEOUT_MS = 30_000;

const READ = /^\s*\(?\s*(select|show)\b/i;

/**
 * Bounds every read sent through `pool.query` (drizzle's outside transactions included),
 * by the read's own `timeout` where it gives one.
 */
function boundReads(pool: Pool, timeoutMs: number): void {
  const query = pool.query.bind(pool);
  const bounded = async (sql: string | { sql: string; timeout?: number }, values?: unknown) => {
    const options = typeof sql === 'string' ? { sql } : sql;
    if (!READ.test(options.sql)) return query(sql as never, values as never);
    const conn = await pool.getConnection();
    let broken = false;
    try {
      return await conn.query(
        { ...options, timeout: options.timeout ?? timeoutMs } as never,
        values as never,
      );
    } catch (err) {
      // The answer may still come, or never: either way this connection is done with.
      broken = (err as { code?: string }).code === 'PROTOCOL_SEQUENCE_TIMEOUT';
      if (broken) void stopOnServer(conn);
      throw err;
    } finally {
      if (broken) conn.destroy();
      else conn.release();
    }
  };
  pool.query = bounded as Pool['query'];
}

/**
 * Stops on the server the statement a connection gave up on. Dropping the connection does
 * not: the server runs a slow read to its end, holding its read view (which keeps purge
 * from clearing the index), while the caller sends it again. Under a million timers'
 * backlog, a minute's compensator reads piled up that way for a quarter of an hour.
 * KILL QUERY goes on a connection of its own to the same server: the pool may have moved
 * to another host, where the id names another session.
 */
async function stopOnServer(conn: PoolConnection): Promise<void> {
  const { host, port, user, password, ssl } = (
    conn.connection as unknown as {
      config: { host: string; port: number; user: string; password: string; ssl?: PoolOptions['ssl'] };
    }
  ).config;
  const threadId = Number(conn.threadId);
  if (!Number.isInteger(threadId)) return;
  const killer = await mysql
    .createConnection({
      host,
      port,
      user,
      password,
      connectTimeout: KILL_TIMEOUT_MS,
      ...(ssl ? { ssl } : {}),
    })
    .catch(() => null);
  if (killer === null) return;
  try {
    await killer.query({ sql: `KILL QUERY ${threadId}`, timeout: KILL_TIMEOUT_MS });
    await killer.end();
  } catch {
    killer.destroy();
  }
}

/** How long stopping a read on the server may take (a half-open link never answers). */
const KILL_TIMEOUT_MS = 5_000;

/**
 * Tells `log` when the pool cannot open a connection to MySQL (the store is away) and when
 * it opens one again. Only opening is watched: a pooled connection the server closed while
 * idle (wait_timeout) is no outage, and the next one opened says whether there is one.
 */
export function watchConnections(database: Database, log: ConnectionLog): void {
  const pool = database.pool.pool;
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = ((callback: (err: Error | null, conn?: unknown) => void) =>
    getConnection((err, conn) => {
      if (err) log.report(err);
      callback(err, conn);
    })) as typeof pool.getConnection;
  pool.on('connection', () => log.reachable());
}

interface PoolInternals {
  config: { connectionConfig: { host: string; port: number } };
  _freeConnections: { toArray(): Array<{ destroy(): void }> };
}

/** What followHosts reads and wraps on each of the pool's connections. */
interface ConnectionInternals {
  config: { host: string; port: number };
  /** Null once the connection has left the pool. */
  _pool: unknown;
  destroy(): void;
  addCommand(cmd: { onResult?: (err: Error | null, ...rest: unknown[]) => void }): unknown;
}

/** How often a pool on a Galera node asks it whether it is still in the primary component. */
export const HOST_CHECK_MS = 2000;

/**
 * Keeps the pool on one host of the URL's list and moves it to the next when that host
 * fails: opening a connection there fails for want of the host (refused, reset, timed
 * out), or the host is a Galera node that left the primary component. Such a node still
 * takes connections, so it is found two ways: a statement it refuses with 1047
 * (isNodeNotReady), and, for a pool that sends nothing, a check every `checkMs` of
 * `wsrep_ready` and `wsrep_cluster_status`, made only when the URL lists several hosts
 * and the server runs wsrep (a plain MariaDB reports `wsrep_ready` OFF too). Any other
 * SQL error never moves the pool.
 *
 * The pool stays the same object, so drizzle and every holder of it follow; only the
 * address new connections open to changes. Idle connections to the old host are dropped,
 * and busy ones are closed when released, so that no transaction begins there. A
 * transaction keeps the one connection it began on: one that breaks mid-way fails as it
 * would with a single host. Returns what stops the check.
 */
function followHosts(
  pool: Pool,
  url: string,
  first: number,
  log: HostLog | undefined,
  checkMs: number,
): () => void {
  const hosts = parseMysqlUrl(url).hosts;
  let current = first % hosts.length;
  log?.info({ host: hostLabel(hosts[current] ?? hosts[0]!), hosts: hosts.length }, 'MySQL host in use');
  if (hosts.length < 2) return () => undefined;
  const inner = pool.pool;
  const internals = inner as unknown as PoolInternals;
  const inUse = (conn: ConnectionInternals) =>
    conn.config.host === hosts[current]!.host && conn.config.port === hosts[current]!.port;

  // Many callers see a failed host at once: only the first of them, still on it, moves the pool on.
  const leave = (from: number, why: object) => {
    if (from !== current) return;
    const left = hosts[current]!;
    current = (current + 1) % hosts.length;
    const to = hosts[current]!;
    internals.config.connectionConfig.host = to.host;
    internals.config.connectionConfig.port = to.port;
    for (const idle of internals._freeConnections.toArray()) idle.destroy();
    log?.warn({ host: hostLabel(to), from: hostLabel(left), ...why }, 'MySQL host failed; moved to the next');
  };

  const getConnection = inner.getConnection.bind(inner);
  inner.getConnection = ((callback: (err: Error | null, conn?: unknown) => void) => {
    const tried = current;
    getConnection((err, conn) => {
      if (err && isConnectionFailure(err)) leave(tried, { code: (err as { code?: string }).code });
      callback(err, conn);
    });
  }) as typeof inner.getConnection;

  // Every statement of every connection passes addCommand: its answer says whether the node refused it.
  inner.on('connection', (conn) => {
    const c = conn as unknown as ConnectionInternals;
    const addCommand = c.addCommand.bind(c);
    c.addCommand = (cmd) => {
      const onResult = cmd.onResult;
      if (onResult)
        cmd.onResult = (err, ...rest) => {
          if (err && isNodeNotReady(err) && inUse(c))
            leave(current, { code: 'WSREP_NOT_READY', errno: 1047 });
          onResult(err, ...rest);
        };
      return addCommand(cmd);
    };
  });

  // A connection to a host left behind that still answers (a node out of quorum) is closed, not reused.
  const releaseConnection = inner.releaseConnection.bind(inner);
  inner.releaseConnection = ((conn: ConnectionInternals) => {
    if (conn._pool && !inUse(conn)) conn.destroy();
    else releaseConnection(conn as never);
  }) as unknown as typeof inner.releaseConnection;

  let galera: boolean | undefined;
  let checking = false;
  const check = async () => {
    if (checking || galera === false) return;
    checking = true;
    try {
      const conn = await pool.getConnection();
      let broken = false;
      try {
        const c = conn.connection as unknown as ConnectionInternals;
        const ask = async (sql: string) => {
          const [rows] = await conn.query({ sql, timeout: checkMs * 5 });
          return new Map(
            (rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, r.Value]),
          );
        };
        // Asked once: the hosts of one URL are all Galera nodes or none is.
        galera ??= (await ask("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")).get('wsrep_on') === 'ON';
        if (!galera) return;
        const status = await ask(
          "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_cluster_status')",
        );
        const ready = status.get('wsrep_ready');
        const cluster = status.get('wsrep_cluster_status');
        if (inUse(c) && (ready !== 'ON' || cluster !== 'Primary'))
          leave(current, { code: 'WSREP_NOT_READY', wsrep_ready: ready, wsrep_cluster_status: cluster });
      } catch (err) {
        // An answer that timed out may still come: that connection is not for anyone else.
        broken = true;
        throw err;
      } finally {
        if (broken) conn.destroy();
        else conn.release();
      }
    } catch {
      // A host that cannot be reached moved the pool on already; anything else: asked again next time.
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(check, checkMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Tries of a transaction that deadlocked. */
const DEADLOCK_TRIES = 5;

export function isDeadlock(err: unknown): boolean {
  return (err as { errno?: number }).errno === 1213;
}

/** Where the pool says which host it uses: at the start, and at each move to the next. */
export interface HostLog {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
}

export interface OpenOptions {
  readTimeoutMs?: number;
  /** The host of the URL's list to start on: the one `prepareDatabase` reached. */
  firstHost?: number;
  log?: HostLog;
  /** How often a pool on a Galera node checks that it is in the primary component (HOST_CHECK_MS). */
  hostCheckMs?: number;
}

/**
 * Opens the pool. Every session starts with SESSION_SETTINGS, queued before any query of its own.
 * With several hosts in the URL the pool uses one at a time (see `followHosts`).
 */
export function openDatabase(url: string, extra: PoolOptions = {}, options: OpenOptions = {}): Database {
  const first = options.firstHost ?? 0;
  const pool = mysql.createPool(poolOptions(url, extra, first));
  pool.pool.on('connection', (conn) => {
    conn.query(SESSION_SETTINGS);
  });
  const stopHostCheck = followHosts(pool, url, first, options.log, options.hostCheckMs ?? HOST_CHECK_MS);
  boundReads(pool, options.readTimeoutMs ?? READ_TIMEOUT_MS);
  return {
    db: drizzle(pool),
    pool,
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        const conn = await pool.getConnection();
        try {
          await conn.beginTransaction();
          const result = await fn({ db: drizzle(conn), conn });
          await conn.commit();
          return result;
        } catch (err) {
          await conn.rollback().catch(() => undefined);
          // A deadlock (or a Galera certification conflict) rolled the whole transaction back:
          // it is tried again, a few times, after a random pause that breaks the tie.
          if (!isDeadlock(err) || attempt >= DEADLOCK_TRIES) throw err;
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
        } finally {
          conn.release();
        }
      }
    },
    close: () => {
      stopHostCheck();
      return pool.end();
    },
  };
}
