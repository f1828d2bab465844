import type { Logger } from './logger.js';

/**
 * Says when Redis or MySQL stops answering and when it answers again, for the whole
 * process: a lost store makes every connection, queue and worker fail several times a
 * second, which drowned the log in the same line. One line at most every
 * CONNECTION_LOG_EVERY_MS per store (counting the errors between), and one when it is back.
 */

/** The least time between two lines about one store being unreachable. */
export const CONNECTION_LOG_EVERY_MS = 10_000;

/** Socket-level failures: the store cannot be reached, or the connection to it broke. */
const LOST_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
]);

/**
 * Whether `err` (or an error it wraps, as drizzle wraps the driver's) says the connection
 * is lost: a socket error, or one mysql2 marks fatal (the connection is unusable).
 */
export function isLostConnection(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const { code, fatal } = e as Error & { code?: unknown; fatal?: unknown };
    if ((typeof code === 'string' && LOST_CODES.has(code)) || fatal === true) return true;
    // ioredis, for a command sent on a connection it has given up on.
    if (e.message.startsWith('Connection is closed')) return true;
  }
  return false;
}

/** A store URL fit for a log: its passwords, if any, replaced by `***` (a Sentinel's in the query too). */
export function withoutPassword(given: string): string {
  // The query first: a raw @ in a Sentinel's password must not be taken for the userinfo's end.
  const url = given.replace(/([?&]sentinelPassword=)[^&#]*/g, '$1***');
  const start = url.indexOf('//');
  if (start < 0) return url;
  const at = url.lastIndexOf('@');
  if (at < start) return url;
  const colon = url.indexOf(':', start + 2);
  if (colon < 0 || colon > at) return url;
  return `${url.slice(0, colon + 1)}***${url.slice(at)}`;
}

export interface ConnectionTarget {
  /** How a person names the store: `Redis`, `MySQL`. */
  store: string;
  /** The setting that points at it, where a person looks when it is wrong. */
  setting: string;
  url: string;
}

/** What watch() listens to: an ioredis client (or cluster) emits both. */
interface Watchable {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
}

export class ConnectionLog {
  private readonly url: string;
  private down = false;
  private downSince = 0;
  /** A line said the store is unreachable since it was last reachable. */
  private saidDown = false;
  private lastLineAt = Number.NEGATIVE_INFINITY;
  /** Errors since the last line. */
  private errors = 0;

  constructor(
    private readonly logger: Logger,
    private readonly target: ConnectionTarget,
    private readonly now: () => number = Date.now,
    private readonly everyMs = CONNECTION_LOG_EVERY_MS,
  ) {
    this.url = withoutPassword(target.url);
  }

  /** The store did not answer: said now, unless a line about it went out within everyMs. */
  lost(err: unknown): void {
    const now = this.now();
    if (!this.down) {
      this.down = true;
      this.downSince = now;
    }
    this.errors++;
    if (now - this.lastLineAt < this.everyMs) return;
    const { store, setting } = this.target;
    this.logger.warn(
      {
        setting,
        url: this.url,
        err: err instanceof Error ? err.message : String(err),
        errors: this.errors,
        downForMs: now - this.downSince,
      },
      `${store} at ${setting} is ${this.saidDown ? 'still ' : ''}unreachable`,
    );
    this.saidDown = true;
    this.lastLineAt = now;
    this.errors = 0;
  }

  /** The store answered: said once, if a line said it was unreachable. */
  reachable(): void {
    if (!this.down) return;
    const now = this.now();
    this.down = false;
    if (this.saidDown) {
      const { store, setting } = this.target;
      this.logger.info(
        { setting, url: this.url, downForMs: now - this.downSince, errors: this.errors },
        `${store} at ${setting} is reachable again`,
      );
      this.lastLineAt = now;
    }
    this.saidDown = false;
    this.errors = 0;
  }

  /**
   * An error from something that also fails for other reasons (a BullMQ queue or worker):
   * a lost connection is taken here (true); anything else is the caller's to log (false).
   */
  report(err: unknown): boolean {
    if (!isLostConnection(err)) return false;
    this.lost(err);
    return true;
  }

  /** A connection's every error means the store is away, and its `ready` that it is back. */
  watch(connection: Watchable): void {
    connection.on('error', (err) => this.lost(err));
    connection.on('ready', () => this.reachable());
  }
}

/** One ConnectionLog per store of the process, shared by every connection to it. */
export interface ConnectionLogs {
  redis: ConnectionLog;
  mysql: ConnectionLog;
}

export function connectionLogs(
  logger: Logger,
  urls: { redisUrl: string; mysqlUrl: string },
  now: () => number = Date.now,
): ConnectionLogs {
  return {
    redis: new ConnectionLog(logger, { store: 'Redis', setting: 'REDIS_URL', url: urls.redisUrl }, now),
    mysql: new ConnectionLog(logger, { store: 'MySQL', setting: 'MYSQL_URL', url: urls.mysqlUrl }, now),
  };
}
