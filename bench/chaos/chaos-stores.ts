/**
 * The chaos run's own stores on the shared servers: a fresh MySQL database and a Redis key
 * prefix nobody else uses, read directly (not through the processes' proxies), and removed
 * at the end. Redis loss deletes only this prefix's keys: the server is shared.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { prepareDatabase } from '../../src/storage/db/migrate.js';
import type { RunRow } from './checker.js';

export class ChaosStores {
  private cleaned = false;

  private constructor(
    readonly database: string,
    /** The servers, e.g. mysql://root@127.0.0.1:3306 and redis://127.0.0.1:6379. */
    readonly mysqlServer: string,
    readonly redisUrl: string,
    private readonly pool: mysql.Pool,
    private readonly redis: Redis,
  ) {}

  static async create(mysqlServer: string, redisUrl: string, seed: number): Promise<ChaosStores> {
    const database = `xt_chaos${seed}_${randomBytes(4).toString('hex')}`;
    await prepareDatabase(`${mysqlServer}/${database}`);
    // run_at holds UTC: read it as such.
    const pool = mysql.createPool({ uri: `${mysqlServer}/${database}`, timezone: 'Z', connectionLimit: 2 });
    return new ChaosStores(database, mysqlServer, redisUrl, pool, new Redis(redisUrl));
  }

  /** Every key of the run: xtimer's own, and BullMQ's under the hash tag of the same name. */
  get prefix(): string {
    return `${this.database}:`;
  }

  private get patterns(): string[] {
    return [`${this.database}:*`, `{${this.database}}:*`];
  }

  /** MySQL's address, for a proxy in front of it. */
  mysqlAddress(): { host: string; port: number } {
    const u = new URL(this.mysqlServer);
    return { host: u.hostname, port: Number(u.port || 3306) };
  }

  /** The database's URL through a proxy listening on `port`. */
  mysqlUrlVia(port: number): string {
    const u = new URL(this.mysqlServer);
    u.host = `127.0.0.1:${port}`;
    return `${u.toString().replace(/\/$/, '')}/${this.database}`;
  }

  /**
   * Deletes every key of the run, never FLUSHDB: the keys are found first (SCAN, which on a
   * server holding a million keys of others' takes seconds), then unlinked in one MULTI, so
   * that the loss is one moment, as a flush or a failover is. Deleting them as the scan went
   * left a slice rebuilt meanwhile half gone, its runs pending for good: no loss does that.
   */
  async loseRedisKeys(): Promise<{ keys: number; at: number; ms: number }> {
    const found = new Set<string>();
    for (const match of this.patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', 20_000);
        cursor = next;
        for (const k of keys) found.add(k);
      } while (cursor !== '0');
    }
    const at = Date.now();
    const all = [...found];
    const multi = this.redis.multi();
    for (let i = 0; i < all.length; i += 1000) multi.unlink(...all.slice(i, i + 1000));
    const replies = all.length > 0 ? ((await multi.exec()) ?? []) : [];
    const keys = replies.reduce((n, [, deleted]) => n + Number(deleted ?? 0), 0);
    return { keys, at, ms: Date.now() - at };
  }

  /** Runs due before `before` still pending or running. */
  async unsettled(before: number): Promise<number> {
    const [rows] = await this.pool.query(
      "SELECT COUNT(*) AS n FROM tasks WHERE status IN ('pending', 'running') AND run_at < ?",
      [new Date(before)],
    );
    return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
  }

  /** The rows of `tasks` (of one timer, if given), stamped with when they were read. */
  async rows(timerId?: number): Promise<RunRow[]> {
    const readAt = Date.now();
    const [rows] = await this.pool.query(
      `SELECT timer_id, run_at, status, attempts, error FROM tasks${timerId === undefined ? '' : ' WHERE timer_id = ?'}`,
      timerId === undefined ? [] : [timerId],
    );
    return (
      rows as Array<{
        timer_id: number;
        run_at: Date;
        status: string;
        attempts: number;
        error: string | null;
      }>
    ).map((r) => ({
      timerId: Number(r.timer_id),
      runAt: r.run_at.getTime(),
      status: r.status,
      attempts: Number(r.attempts),
      error: r.error,
      readAt,
    }));
  }

  /** Drops the database and deletes the keys; safe to call twice. */
  async cleanup(): Promise<void> {
    if (this.cleaned) return;
    this.cleaned = true;
    await this.pool.end().catch(() => undefined);
    const conn = await mysql.createConnection(this.mysqlServer);
    try {
      await conn.query(`DROP DATABASE IF EXISTS \`${this.database}\``);
    } finally {
      await conn.end();
    }
    await this.loseRedisKeys();
    this.redis.disconnect();
  }
}
