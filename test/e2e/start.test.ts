import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { withScripts } from '../../src/storage/redis/scripts.js';
import { freePort } from '../helpers/processes.js';
import {
  deleteKeys,
  dropDatabase,
  eventually,
  MYSQL_SERVER,
  REDIS_URL,
  TEST_ENV,
  uniqueName,
} from '../helpers/stores.js';

/**
 * Starts the real entrypoint from its sources (tsx workers/main.ts, settings in the
 * environment) and drives it over real HTTP; production-build.test.ts starts the compiled one.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function start(env: Record<string, string>): Started {
  const child = spawn(TSX, ['workers/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function databaseExists(name: string): Promise<boolean> {
  const conn = await mysql.createConnection(MYSQL_SERVER);
  try {
    const [rows] = await conn.query(
      'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [name],
    );
    return (rows as unknown[]).length > 0;
  } finally {
    await conn.end();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const dbName = uniqueName('e2estart');
const prefix = `${uniqueName('e2e')}:`;

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await dropDatabase(dbName);
  const redis = withScripts(createRedis(REDIS_URL));
  try {
    await deleteKeys(redis, [`${prefix}*`, `{${prefix.replace(/:+$/, '')}}*`]);
  } finally {
    redis.disconnect();
  }
});

describe('tsx workers/main.ts', () => {
  it('creates its database, serves the API over HTTP, and exits 0 on SIGTERM', async () => {
    expect(await databaseExists(dbName)).toBe(false);
    const port = await freePort();
    const proc = start({
      ...TEST_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      MYSQL_URL: `${MYSQL_SERVER}/${dbName}`,
      REDIS_URL,
      XTIMER_PREFIX: prefix,
      XTIMER_ROLES: 'api',
      LOG_LEVEL: 'info',
    });
    const base = `http://127.0.0.1:${port}`;
    const diagnostics = () => `\nstdout:\n${proc.stdout()}\nstderr:\n${proc.stderr()}`;

    try {
      await eventually(
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`process exited with ${proc.child.exitCode}`);
          return (await fetch(`${base}/healthz`)).status === 200;
        },
        `/healthz to answer 200${diagnostics()}`,
        20_000,
        100,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}${diagnostics()}`);
    }
    expect(await databaseExists(dbName)).toBe(true);
    // The line that says it listens names where the console is.
    expect(proc.stdout()).toContain(`"console":"${base}/dashboard"`);

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);

    const post = (body: unknown) =>
      fetch(`${base}/api/v1/timers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await post({
      app: 'e2e',
      name: 'nightly',
      cron: '0 30 2 * * *',
      timezone: 'Asia/Shanghai',
      callback: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(created.status).toBe(201);
    const timer = (await created.json()) as { id: number; name: string; status: string };
    expect(timer).toMatchObject({ name: 'nightly', status: 'inactive' });

    const got = await fetch(`${base}/api/v1/timers/${timer.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(timer);

    const listed = await fetch(`${base}/api/v1/timers?app=e2e`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ items: [timer], nextCursor: null });

    const bad = await post({
      app: 'e2e',
      name: 'broken',
      cron: '0 61 * * * *',
      callback: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('INVALID_CRON');

    proc.child.kill('SIGTERM');
    const { code, signal } = await withTimeout(proc.exited, 15_000, `exit after SIGTERM${diagnostics()}`);
    expect({ code, signal }, diagnostics()).toEqual({ code: 0, signal: null });
  });

  it('exits non-zero naming PORT when PORT is not a number', async () => {
    const proc = start({
      PORT: 'abc',
      MYSQL_URL: `${MYSQL_SERVER}/${dbName}`,
      REDIS_URL,
      XTIMER_PREFIX: prefix,
      XTIMER_ROLES: 'api',
      LOG_LEVEL: 'info',
    });
    // It exits before it connects to anything; the bound is for a hang, not its speed: tsx
    // compiles the whole entrypoint first, 3 s on a quiet box and over 15 s beside CI's load.
    const { code } = await withTimeout(proc.exited, 60_000, 'the process to exit');
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(proc.stderr()).toContain('PORT');
    expect(proc.stderr()).toContain('abc');
  });
});
