import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { withScripts } from '../../src/storage/redis/scripts.js';
import { FROM_DIST, freePort, XtimerProcess } from '../helpers/processes.js';
import { Sink } from '../helpers/sink.js';
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
 * The production build: what `npm start` runs — the prestart build, then
 * `node dist/workers/main.js` with no TypeScript loader — creates and migrates a fresh
 * database from the SQL copied into dist, loads the Lua copied there, answers /healthz
 * and fires a timer into a real sink.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dbName = uniqueName('e2edist');
const prefix = `${dbName}:`;
let sink: Sink;
let proc: XtimerProcess | undefined;

/** Runs node with `args` in the repository; its exit code and output. */
async function node(args: string[]): Promise<{ code: number; output: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (b: Buffer) => (output += b));
  const [code] = await once(child, 'exit');
  return { code, output };
}

/** Runs the prestart of `npm start`: builds dist/ unless it was built from these very sources. */
async function buildIfStale(): Promise<void> {
  const child = spawn(process.execPath, ['scripts/build.mjs', '--if-stale'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (b: Buffer) => (output += b));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`scripts/build.mjs exited with ${code}:\n${output}`);
}

beforeAll(async () => {
  sink = await new Sink().start();
  await buildIfStale();
}, 240_000);

afterAll(async () => {
  await proc?.stop('SIGKILL');
  await sink?.stop();
  await dropDatabase(dbName);
  const redis = withScripts(createRedis(REDIS_URL));
  try {
    await deleteKeys(redis, [`${prefix}*`, `{${dbName}}*`]);
  } finally {
    redis.disconnect();
  }
});

describe('node dist/workers/main.js', () => {
  it('runs every role from compiled JavaScript: health, a fresh database, a timer fired', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    proc = new XtimerProcess(
      'dist',
      {
        ...TEST_ENV,
        MYSQL_URL: `${MYSQL_SERVER}/${dbName}`,
        REDIS_URL,
        XTIMER_PREFIX: prefix,
        PORT: String(port),
        LOG_LEVEL: 'info',
      },
      FROM_DIST,
    );
    await proc.started();
    expect(proc.logs('xtimer started')[0]?.roles).toEqual([
      'api',
      'scheduler',
      'migrator',
      'trigger',
      'executor',
    ]);

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { redis: 'ok', mysql: 'ok' } });

    const created = await fetch(`${base}/api/v1/timers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        app: 'e2e',
        name: 'from-dist',
        cron: '* * * * * *',
        status: 'active',
        callback: { url: sink.url() },
      }),
    });
    expect(created.status).toBe(201);
    const timer = (await created.json()) as { id: number };

    const [first] = await eventually(
      () => sink.forTimer(timer.id).length > 0 && sink.forTimer(timer.id),
      'a callback',
    );
    expect(first!.taskId).toBe(`${timer.id}_${first!.scheduledAt}`);
    expect(first!.attempt).toBe(1);

    expect(await proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('ships the typed client as the xtimer/client export and the CLI as the xtimer bin', async () => {
    // The package resolves its own export by name, as an installed dependency would.
    const client = await node([
      '--input-type=module',
      '-e',
      "const m = await import('xtimer/client'); console.log([typeof m.createXtimerClient, typeof m.verifyCallback].join())",
    ]);
    expect(client).toEqual({ code: 0, output: 'function,function\n' });
    expect(existsSync(new URL('dist/client/index.d.ts', `file://${ROOT}`))).toBe(true);
    const help = await node(['dist/cli/main.js', '--help']);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/^Usage: xtimer/);
  });
});
