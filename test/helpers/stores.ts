import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { type Config, loadConfig } from '../../src/config.js';
import { type Core, createCore } from '../../src/core.js';
import type { AnswerLog } from '../../src/domain/attempt-answers.js';
import type { TaskStatus } from '../../src/domain/timer.js';
import { createLogger } from '../../src/observability/logger.js';
import { type Database, openDatabase } from '../../src/storage/db/client.js';
import { prepareDatabase } from '../../src/storage/db/migrate.js';
import { sqlDateTime } from '../../src/storage/db/multi-row-insert.js';
import { createRedis } from '../../src/storage/redis/connection.js';
import { type ScriptedRedis, withScripts } from '../../src/storage/redis/scripts.js';

/** The real servers tests talk to (the same ones CI uses). */
export const MYSQL_SERVER = process.env.TEST_MYSQL_SERVER ?? 'mysql://root@127.0.0.1:3306';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A test file's own stores: a fresh MySQL database (migrated) and a Redis key prefix
 * nobody else uses. `cleanup()` drops the database and deletes the keys.
 */
export interface TestStores {
  name: string;
  env: Record<string, string>;
  config: Config;
  database: Database;
  redis: ScriptedRedis;
  cleanup(): Promise<void>;
}

export function uniqueName(label: string): string {
  return `xt_${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}_${randomBytes(4).toString('hex')}`;
}

/**
 * Settings every test's services and processes share. The SSRF guard is on by default,
 * and tests call back to a local sink at http://127.0.0.1:<port>: allowed here, once.
 * A test of the guard itself overrides it (an empty value counts as unset).
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'warn',
  CALLBACK_ALLOW_HOSTS: '127.0.0.1',
};

export async function createTestStores(label: string, env: Record<string, string> = {}): Promise<TestStores> {
  const name = uniqueName(label);
  const fullEnv = {
    MYSQL_URL: `${MYSQL_SERVER}/${name}`,
    REDIS_URL,
    XTIMER_PREFIX: `${name}:`,
    ...TEST_ENV,
    ...env,
  };
  const config = loadConfig(fullEnv);
  await prepareDatabase(config.mysqlUrl);
  const database = openDatabase(config.mysqlUrl);
  const redis = withScripts(createRedis(config.redisUrl));
  return {
    name,
    env: fullEnv,
    config,
    database,
    redis,
    async cleanup() {
      await database.close().catch(() => undefined);
      await dropDatabase(name);
      await deleteKeys(redis, [`${name}:*`, `{${name}}:*`]);
      redis.disconnect();
    },
  };
}

export async function dropDatabase(name: string): Promise<void> {
  const conn = await mysql.createConnection(MYSQL_SERVER);
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await conn.end();
  }
}

export async function deleteKeys(redis: ScriptedRedis, patterns: string[]): Promise<void> {
  for (const match of patterns) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
}

/** The shared services over a test's stores, with an injectable clock. */
export function createTestCore(stores: TestStores, now: () => number = Date.now): Core {
  return createCore(stores.config, createLogger('silent'), stores.database, stores.redis, now);
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `probe` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function eventually<T>(
  probe: () => Promise<T> | T,
  what: string,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A run as the executor leaves it, written straight to MySQL (firing itself is the e2e tests' business). */
export interface RecordedRun {
  timerId: number;
  app: string;
  runAt: number;
  status: TaskStatus;
  output?: string;
  error?: string;
  durationMs?: number;
  attempts?: number;
  httpStatus?: number;
  /** The answer log: the latest answer's headers and size, the earlier attempts' answers. */
  answers?: AnswerLog;
  /** When the first attempt left (ms after runAt); the last one left 3 ms after runAt. */
  firstLateMs?: number;
}

export async function recordRun(database: Database, r: RecordedRun): Promise<void> {
  const called = r.status !== 'pending' && r.status !== 'skipped' && r.status !== 'missed';
  const firedAt = called ? sqlDateTime(r.runAt + 3) : null;
  const firstFiredAt = called && r.firstLateMs !== undefined ? sqlDateTime(r.runAt + r.firstLateMs) : firedAt;
  await database.pool.query(
    'INSERT INTO tasks (timer_id, app, run_at, status, attempts, http_status, output, error, fired_at, first_fired_at, duration_ms, answer_log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      r.timerId,
      r.app,
      sqlDateTime(r.runAt),
      r.status,
      r.attempts ?? (called ? 1 : 0),
      r.httpStatus ?? null,
      r.output ?? null,
      r.error ?? null,
      firedAt,
      firstFiredAt,
      r.durationMs ?? null,
      r.answers ? JSON.stringify(r.answers) : null,
    ],
  );
}
