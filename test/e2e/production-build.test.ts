import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
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
 * and fires a timer into a real sink; and `npm pack` ships that build to another project.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dbName = uniqueName('e2edist');
const prefix = `${dbName}:`;
let sink: Sink;
let proc: XtimerProcess | undefined;

/** Runs `command` (node unless named) with `args` in `cwd`; its exit code, stdout and both outputs. */
async function run(
  args: string[],
  { cwd = ROOT, command = process.execPath, env = {} as Record<string, string> } = {},
): Promise<{ code: number; output: string; stdout: string }> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b));
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (b: Buffer) => (output += b));
  const [code] = await once(child, 'exit');
  return { code, output, stdout };
}
const node = async (args: string[]) => {
  const { code, output } = await run(args);
  return { code, output };
};

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

describe('npm pack', () => {
  it('makes a tarball whose xtimer/client and xtimer bin work in a project that installs it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xtimer-pack-'));
    try {
      // As docs/timers-as-code.md ("From a clone") says: pack the built clone.
      const packed = await run(['pack', '--json', '--pack-destination', dir], {
        command: 'npm',
        env: { npm_config_update_notifier: 'false' },
      });
      expect(packed.code, packed.output).toBe(0);
      const [tarball] = JSON.parse(packed.stdout) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      const files = tarball!.files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining([
          'package.json',
          'dist/client/index.js',
          'dist/client/index.d.ts',
          'dist/cli/main.js',
        ]),
      );
      // The build, not the sources and tests it was built from.
      expect(
        files.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md'),
      ).toEqual([]);

      // A project with the tarball unpacked as node_modules/xtimer; its dependencies that the
      // client and the CLI load are linked from this clone's, where npm install would fetch them.
      const project = join(dir, 'project');
      mkdirSync(join(project, 'node_modules'), { recursive: true });
      const untar = await run(['-xzf', join(dir, tarball!.filename), '-C', join(project, 'node_modules')], {
        command: 'tar',
      });
      expect(untar.code, untar.output).toBe(0);
      renameSync(join(project, 'node_modules/package'), join(project, 'node_modules/xtimer'));
      for (const dep of ['openapi-fetch', 'standardwebhooks', 'commander', 'yaml']) {
        symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep), 'dir');
      }

      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const at = new Date();
      const signature = new Webhook(secret).sign('7_1795372200000', at, '');
      const imported = await run(
        [
          '--input-type=module',
          '-e',
          `import { createXtimerClient, verifyCallback } from 'xtimer/client';
const headers = { 'webhook-id': '7_1795372200000', 'webhook-timestamp': '${Math.floor(at.getTime() / 1000)}', 'webhook-signature': '${signature}' };
console.log(typeof createXtimerClient({ baseUrl: 'http://127.0.0.1:8081' }).GET, JSON.stringify(verifyCallback({ headers, body: '' }, process.env.SECRET)));`,
        ],
        { cwd: project, env: { SECRET: secret } },
      );
      expect(imported.code, imported.output).toBe(0);
      expect(imported.output).toBe(
        'function {"taskId":"7_1795372200000","timerId":7,"scheduledAt":1795372200000,"attempt":1,"trigger":"schedule"}\n',
      );

      const help = await run(['node_modules/xtimer/dist/cli/main.js', 'pause', '--help'], { cwd: project });
      expect(help.code, help.output).toBe(0);
      expect(help.output).toMatch(/^Usage: xtimer pause/);
      // --until's durations come from the package's own compiled domain code.
      const until = await run(['node_modules/xtimer/dist/cli/main.js', 'pause', '1', '--until', 'soon'], {
        cwd: project,
      });
      expect(until.code).toBe(2);
      expect(until.output).toMatch(/expected an ISO time .* or a duration from now/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
