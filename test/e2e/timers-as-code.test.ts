import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackVerificationError, createXtimerClient, verifyCallback } from '../../client/index.js';
import { TYPES_FILE, typesFromSpec } from '../../scripts/client-types.js';
import { type CliResult, runXtimer } from '../helpers/cli.js';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * Timers as code, end to end against a real service: the `xtimer` CLI run as a
 * child process (plan, apply --yes, runs --follow, --json, exit codes), the typed client
 * and its committed types checked against the live /openapi.json, and verifyCallback on
 * a real signed callback.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_TOKEN = 'admin-token-for-the-timers-as-code-tests-0123';
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes
const ANSI = /\u001b\[/;

const e2e = useCluster('ascode', {
  storeEnv: {
    XTIMER_ADMIN_TOKEN: ADMIN_TOKEN,
    XTIMER_SECRET_KEY: 'secret-key-for-the-timers-as-code-tests-0123',
    // The sample file of docs/timers-as-code.md calls these hosts; allowed by name, they are not resolved.
    CALLBACK_ALLOW_HOSTS: '127.0.0.1,billing.internal,reports.internal',
  },
});
let dir: string;
let signingSecret: string;
/** App ops's API key: not the admin's, so the brake refuses it. */
let opsKey: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'xtimer-as-code-'));
  const app = await fetch(`${e2e.base}/api/v1/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ app: 'ops' }),
  });
  expect(app.status).toBe(201);
  ({ signingSecret, apiKey: opsKey } = (await app.json()) as { signingSecret: string; apiKey: string });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `xtimer …` from the sources as its own process, as the admin unless `env` says otherwise. */
const xtimer = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runXtimer(e2e.base, ADMIN_TOKEN, args, env);

function writeFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const timersYaml = () => `app: ops
timers:
  - name: heartbeat
    cron: "* * * * * *"
    status: active
    callback:
      url: ${e2e.sink.url('/beat')}
      body: '{"job":"heartbeat"}'
      headers:
        content-type: application/json
  - name: nightly-report
    cron: "0 30 2 * * *"
    timezone: Europe/Berlin
    callback:
      url: ${e2e.sink.url('/report')}
`;

describe('the xtimer CLI', () => {
  let heartbeatId: number;

  it('plans a file as a diff, refuses to apply without --yes off a terminal, applies with it', async () => {
    const file = writeFile('timers.yaml', timersYaml());
    const plan = await xtimer(['plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('+ heartbeat');
    expect(plan.stdout).toContain('+ nightly-report');
    expect(plan.stdout).toMatch(/Plan: 2 to create, 0 to update, 0 to delete, 0 unchanged/);
    expect(plan.stdout).not.toMatch(ANSI);
    // Colour when forced (a CI log), never with NO_COLOR.
    expect((await xtimer(['plan', '-f', file], { FORCE_COLOR: '1' })).stdout).toMatch(ANSI);
    expect((await xtimer(['plan', '-f', file], { FORCE_COLOR: '1', NO_COLOR: '1' })).stdout).not.toMatch(
      ANSI,
    );

    // For CI: 3 when the plan has changes (0 when it has none, below).
    expect((await xtimer(['plan', '-f', file, '--detailed-exitcode'])).code).toBe(3);

    const asked = await xtimer(['apply', '-f', file]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/--yes/);
    const listed = await xtimer(['timers', 'list', '--app', 'ops', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);

    const applied = await xtimer(['apply', '-f', file, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Applied to app ops: 2 created, 0 updated, 0 deleted, 0 unchanged/);

    const again = await xtimer(['plan', '-f', file, '--json', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      applied: false,
      planId: expect.stringMatching(/^[0-9a-f]{16}$/),
      plan: [
        { name: 'heartbeat', action: 'unchanged' },
        { name: 'nightly-report', action: 'unchanged' },
      ],
    });

    const list = await xtimer(['timers', 'list', '--app', 'ops']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+APP\s+NAME\s+STATUS\s+SCHEDULE/);
    expect(list.stdout).toMatch(/heartbeat\s+active\s+\* \* \* \* \* \*/);
    const timers = JSON.parse((await xtimer(['timers', 'list', '--app', 'ops', '--json'])).stdout);
    heartbeatId = timers.find((t: { name: string }) => t.name === 'heartbeat').id;
    expect(timers.map((t: { name: string }) => t.name).sort()).toEqual(['heartbeat', 'nightly-report']);
  });

  it('shows a change as before → after, and prunes only with --prune', async () => {
    const file = writeFile(
      'changed.json',
      JSON.stringify({
        app: 'ops',
        timers: [
          {
            name: 'heartbeat',
            cron: '* * * * * *',
            status: 'active',
            callback: {
              url: e2e.sink.url('/beat'),
              body: '{"job":"heartbeat"}',
              headers: { 'content-type': 'application/json' },
            },
            description: 'every second',
          },
        ],
      }),
    );
    const plan = await xtimer(['plan', '-f', file, '--prune']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('~ heartbeat');
    expect(plan.stdout).toContain('description: null → "every second"');
    expect(plan.stdout).toContain('- nightly-report');
    const applied = await xtimer(['apply', '-f', file, '--yes', '--json']);
    expect(applied.code).toBe(0);
    const result = JSON.parse(applied.stdout);
    expect(result).toMatchObject({ applied: true, plan: [{ name: 'heartbeat', action: 'update' }] });
    expect(result.plan).toHaveLength(1);
    const names = JSON.parse((await xtimer(['timers', 'list', '--app', 'ops', '--json'])).stdout).map(
      (t: { name: string }) => t.name,
    );
    expect(names.sort()).toEqual(['heartbeat', 'nightly-report']);
  });

  it('follows runs as their outcomes land, one line per run with its id; --json gives one object a line', async () => {
    for (const json of [false, true]) {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'cli/main.ts',
          'runs',
          String(heartbeatId),
          '--follow',
          '--interval',
          '200',
          '--limit',
          '1',
          ...(json ? ['--json'] : []),
        ],
        {
          cwd: ROOT,
          env: { ...process.env, XTIMER_URL: e2e.base, XTIMER_TOKEN: ADMIN_TOKEN, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b));
      try {
        const lines = await eventually(
          () => {
            const done = stdout.split('\n').filter(Boolean);
            return done.length >= 4 && done;
          },
          'four runs followed',
          20_000,
        );
        const ids = lines.map((line) => (json ? JSON.parse(line).id : /\b(\d+_\d+)\b/.exec(line)?.[1]));
        for (const id of ids) expect(id).toMatch(new RegExp(`^${heartbeatId}_\\d+000$`));
        expect(new Set(ids).size).toBe(ids.length);
        if (json) expect(JSON.parse(lines[0]!)).toMatchObject({ timerId: heartbeatId, status: 'succeeded' });
        else expect(lines[0]).toMatch(/succeeded/);
        if (!json) {
          // The reader goes away (`| head -3`): the next line ends the command quietly, exit 0.
          let stderr = '';
          child.stderr.on('data', (b: Buffer) => (stderr += b));
          child.stdout.destroy();
          const [code] = await once(child, 'exit');
          expect(code).toBe(0);
          expect(stderr).toBe('');
        }
      } finally {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await once(child, 'exit');
        }
      }
    }
  });

  it('exits 1 with the API code on an API error, 2 on a usage error, 0 with --help everywhere', async () => {
    const missing = await xtimer(['timers', 'get', '999999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/TIMER_NOT_FOUND: timer 999999 does not exist/);
    const badFile = writeFile(
      'bad.yaml',
      'app: ops\ntimers:\n  - name: x\n    cron: "nope"\n    callback: {url: "http://127.0.0.1:9/"}\n' +
        '  - name: y\n    cron: "* * * * *"\n    timezone: "Mars/Base"\n    callback: {url: "http://127.0.0.1:9/"}\n',
    );
    const bad = await xtimer(['plan', '-f', badFile]);
    expect(bad.code).toBe(1);
    // Every problem, each timer counted from 1 as a person reads the file.
    expect(bad.stderr).toMatch(/INVALID_CRON: timer #1 cron: /);
    expect(bad.stderr).toMatch(/timer #2 timezone: /);
    // With --json the error is on stdout too, for a script.
    const badJson = await xtimer(['plan', '-f', badFile, '--json']);
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stdout).error).toMatchObject({ code: 'INVALID_CRON' });
    const unauthorised = await xtimer(['timers', 'list'], { XTIMER_TOKEN: 'wrong' });
    expect(unauthorised.code).toBe(1);
    expect(unauthorised.stderr).toMatch(/UNAUTHORIZED/);
    expect((await xtimer(['timers', 'get', 'abc'])).code).toBe(2);
    expect((await xtimer(['nonsense'])).code).toBe(2);
    expect((await xtimer(['plan'])).code).toBe(2);
    expect((await xtimer(['plan', '-f', join(dir, 'absent.yaml')])).code).toBe(2);
    for (const command of [
      [],
      ['timers'],
      ['timers', 'list'],
      ['runs'],
      ['preview'],
      ['plan'],
      ['apply'],
      ['pause-all'],
      ['resume-all'],
      ['pause-state'],
    ]) {
      const help = await xtimer([...command, '--help']);
      expect(help.code, command.join(' ')).toBe(0);
      expect(help.stdout).toMatch(/^Usage: xtimer/);
      expect(help.stdout).not.toContain(ADMIN_TOKEN);
    }
  });

  it('previews a cron in a time zone and drives a timer: get, disable, enable, trigger, delete', async () => {
    const preview = await xtimer([
      'preview',
      '0 30 2 * * *',
      '--tz',
      'Asia/Shanghai',
      '--from',
      '2030-01-01T00:00:00Z',
      '--count',
      '2',
    ]);
    expect(preview.code, preview.stderr).toBe(0);
    // 2030-01-01T00:00Z is 08:00 in Shanghai: the next 02:30 there is the next day's.
    expect(preview.stdout).toBe('2030-01-02T02:30:00.000+08:00\n2030-01-03T02:30:00.000+08:00\n');
    const interval = await xtimer([
      'preview',
      '--every',
      '90s',
      '--offset',
      '15s',
      '--from',
      '2030-01-01T00:00:00Z',
      '--count',
      '2',
    ]);
    expect(interval.code, interval.stderr).toBe(0);
    expect(interval.stdout).toBe('2030-01-01T00:00:15.000+00:00\n2030-01-01T00:01:45.000+00:00\n');
    const created = await xtimer([
      'timers',
      'create',
      '--json',
      '--data',
      JSON.stringify({
        app: 'ops',
        name: 'cli-made',
        cron: '0 0 * * * *',
        callback: { url: e2e.sink.url('/cli') },
      }),
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = String(JSON.parse(created.stdout).id);
    expect((await xtimer(['timers', 'get', id])).stdout).toMatch(/name\s+cli-made/);
    expect(JSON.parse((await xtimer(['timers', 'enable', id, '--json'])).stdout).status).toBe('active');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const disabled = await xtimer([
      'timers',
      'disable',
      id,
      '--note',
      'INC-7: receiver down',
      '--until',
      until,
      '--json',
    ]);
    expect(JSON.parse(disabled.stdout)).toMatchObject({
      status: 'inactive',
      pausedNote: 'INC-7: receiver down',
    });
    expect(Date.parse(JSON.parse(disabled.stdout).pausedUntil)).toBe(Date.parse(until));
    // Its receiver refuses the run now (a 400 is final), so it ends failed: one to retry.
    const respond = e2e.sink.respond;
    e2e.sink.respond = (d) => (d.path === '/cli' ? { status: 400, body: 'no' } : respond(d));
    const trigger = await xtimer(['timers', 'trigger', id]);
    expect(trigger.stdout).toMatch(new RegExp(`^Queued run ${id}_\\d+ of timer ${id}`));
    await eventually(() => e2e.sink.deliveries.some((d) => d.path === '/cli'), 'the triggered run');
    // An ended run sent again, and a past range backfilled, from the command line too.
    const taskId = /Queued run (\d+_\d+)/.exec(trigger.stdout)![1]!;
    await eventually(
      async () =>
        JSON.parse((await xtimer(['runs', id, '--json'])).stdout).some(
          (t: any) => t.id === taskId && t.status === 'failed',
        ),
      'the triggered run recorded failed',
    );
    e2e.sink.respond = respond;
    const retried = await xtimer(['retry', taskId]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toBe(`Queued run ${taskId} again.\n`);
    await xtimer(['timers', 'enable', id]);
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const from = new Date(hour - 3 * 3_600_000).toISOString();
    const backfill = await xtimer([
      'timers',
      'backfill',
      id,
      '--from',
      from,
      '--to',
      new Date(hour).toISOString(),
      '--wait',
    ]);
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stdout).toMatch(new RegExp(`^Backfill \\d+ of timer ${id}: 3 of 3 runs to send`));
    // --wait follows it until its runs have ended.
    expect(backfill.stdout).toMatch(/\n {2}sent \d of 3, ended \d \(0 failed\)\n/);
    expect(backfill.stdout).toMatch(/completed: 3 of 3 runs ended, 0 failed\.\n$/);
    expect((await xtimer(['timers', 'delete', id, '--if-match', '"1"'])).code).toBe(1);
    expect((await xtimer(['timers', 'delete', id])).code).toBe(0);
    expect((await xtimer(['timers', 'get', id])).code).toBe(1);
    // An interval timer shows its schedule as written.
    const every = await xtimer([
      'timers',
      'create',
      '--data',
      JSON.stringify({
        app: 'ops',
        name: 'cli-every',
        every: '90s',
        offset: '15s',
        callback: { url: e2e.sink.url('/cli') },
      }),
    ]);
    expect(every.stdout).toMatch(/schedule\s+every 90s offset 15s/);
    expect((await xtimer(['timers', 'list', '--app', 'ops'])).stdout).toMatch(
      /cli-every\s+\w+\s+every 90s offset 15s/,
    );
  });

  it('pauses everything with a note, shows it, and resumes; only with the admin token', async () => {
    const noNote = await xtimer(['pause-all']);
    expect(noNote.code).toBe(2);
    expect(noNote.stderr).toMatch(/required option '--note <text>' not specified/);
    const blank = await xtimer(['pause-all', '--note', ' ']);
    expect(blank.code).toBe(1);
    expect(blank.stderr).toMatch(/VALIDATION_FAILED: note: must not be empty/);
    expect((await xtimer(['pause-state'])).stdout).toBe('Not paused: runs are called as scheduled.\n');

    const paused = await xtimer(['pause-all', '--note', 'INC-9 drill']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(/^PAUSED since \d{4}-\d\d-\d\dT[\d:.]+Z by admin: INC-9 drill\n/);
    expect(paused.stdout).toContain('xtimer resume-all');
    const state = JSON.parse((await xtimer(['pause-state', '--json'])).stdout);
    expect(state).toEqual({
      paused: true,
      note: 'INC-9 drill',
      pausedAt: expect.any(String),
      pausedBy: 'admin',
    });

    const asApp = await xtimer(['resume-all'], { XTIMER_TOKEN: opsKey });
    expect(asApp.code).toBe(1);
    expect(asApp.stderr).toMatch(/FORBIDDEN: only the admin token may do this/);
    expect((await xtimer(['pause-state', '--json'])).stdout).toContain('"paused": true');

    const resumed = await xtimer(['resume-all']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(
      `Resumed: the pause since ${state.pausedAt} by admin (INC-9 drill) has ended; runs due from now on are called.\n`,
    );
    expect(JSON.parse((await xtimer(['resume-all', '--json'])).stdout)).toEqual({
      paused: false,
      ended: null,
    });
  });

  it('applies the sample timers.yaml of docs/timers-as-code.md as shown', async () => {
    const doc = readFileSync(join(ROOT, 'docs/timers-as-code.md'), 'utf8');
    const sample = /```yaml\n# timers\.yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(sample, 'a ```yaml block starting "# timers.yaml"').toBeDefined();
    const file = writeFile('doc-timers.yaml', sample!);
    const plan = await xtimer(['plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(0);
    const applied = await xtimer(['apply', '-f', file, '--yes', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).plan.every((s: { action: string }) => s.action === 'create')).toBe(
      true,
    );
  });
});

describe('the typed client', () => {
  it('reads and changes timers with typed paths, the ETag guarding a change', async () => {
    const client = createXtimerClient({ baseUrl: e2e.base, token: ADMIN_TOKEN });
    const put = await client.PUT('/api/v1/apps/{app}/timers/{name}', {
      params: { path: { app: 'ops', name: 'typed' } },
      body: { cron: '0 0 * * * *', callback: { url: e2e.sink.url('/typed') } },
    });
    expect(put.response.status).toBe(201);
    const id = String(put.data!.id);
    const { data, error } = await client.GET('/api/v1/timers/{id}', { params: { path: { id } } });
    expect(error).toBeUndefined();
    expect(data).toMatchObject({ name: 'typed', status: 'inactive' });
    const etag = put.response.headers.get('etag')!;
    const enabled = await client.POST('/api/v1/timers/{id}/enable', { params: { path: { id } } });
    expect(enabled.data?.status).toBe('active');
    const stale = await client.PATCH('/api/v1/timers/{id}', {
      params: { path: { id }, header: { 'if-match': etag } },
      body: { description: 'late' },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error?.error.code).toBe('VERSION_CONFLICT');
    const unauthorised = await createXtimerClient({ baseUrl: e2e.base, token: 'nope' }).GET('/api/v1/timers');
    expect(unauthorised.error?.error.code).toBe('UNAUTHORIZED');
  });

  it('pauses and resumes everything with typed answers', async () => {
    const client = createXtimerClient({ baseUrl: e2e.base, token: ADMIN_TOKEN });
    const paused = await client.POST('/api/v1/pause', { body: { note: 'typed drill' } });
    expect(paused.data).toMatchObject({ paused: true, note: 'typed drill', pausedBy: 'admin' });
    const { data: state } = await client.GET('/api/v1/pause');
    // The state narrows on `paused`: only a pause has a note.
    expect(state?.paused === true ? state.note : null).toBe('typed drill');
    const resumed = await client.POST('/api/v1/resume');
    expect(resumed.data?.ended?.note).toBe('typed drill');
    const asApp = await createXtimerClient({ baseUrl: e2e.base, token: opsKey }).GET('/api/v1/pause');
    expect(asApp.error?.error.code).toBe('FORBIDDEN');
  });

  it('has committed types equal to those generated from the live /openapi.json', async () => {
    const spec = await (await fetch(`${e2e.base}/openapi.json`)).json();
    const live = await typesFromSpec(spec);
    expect(readFileSync(TYPES_FILE, 'utf8'), 'client/openapi-types.ts is stale: npm run client:types').toBe(
      live,
    );
  });

  it('compiles against the types of the live spec', async () => {
    const spec = await (await fetch(`${e2e.base}/openapi.json`)).json();
    // Under node_modules, so that openapi-fetch resolves from the checked files.
    const check = join(ROOT, 'node_modules', `.xtimer-client-check-${process.pid}`);
    mkdirSync(check, { recursive: true });
    try {
      writeFileSync(join(check, 'live-types.ts'), await typesFromSpec(spec));
      writeFileSync(
        join(check, 'usage.ts'),
        `import type { Client } from 'openapi-fetch';
import { createXtimerClient } from '../../client/index.js';
import type { paths } from './live-types.js';

const client: Client<paths> = createXtimerClient({ baseUrl: 'http://127.0.0.1:8081', token: 't' });

export async function use(id: string): Promise<string> {
  const { data, error } = await client.GET('/api/v1/timers/{id}', { params: { path: { id } } });
  if (error) return error.error.code;
  const plan = await client.POST('/api/v1/apps/{app}/apply', {
    params: { path: { app: 'ops' } },
    body: { timers: [{ name: 'n', cron: '* * * * *', callback: { url: 'http://x.example/' } }], dryRun: true },
  });
  const actions: string[] = (plan.data?.plan ?? []).map((s) => s.action);
  // @ts-expect-error: the API has no such path
  await client.GET('/api/v1/no-such-path');
  return \`\${data.name} \${data.id + 1} \${actions.join()}\`;
}
`,
      );
      const tsc = spawn(
        process.execPath,
        [
          join(ROOT, 'node_modules/typescript/bin/tsc'),
          '--ignoreConfig',
          '--noEmit',
          '--strict',
          '--exactOptionalPropertyTypes',
          '--skipLibCheck',
          '--target',
          'es2023',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--types',
          'node',
          join(check, 'usage.ts'),
        ],
        { cwd: check, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      tsc.stdout.on('data', (b: Buffer) => (output += b));
      tsc.stderr.on('data', (b: Buffer) => (output += b));
      const [code] = await once(tsc, 'exit');
      expect(output).toBe('');
      expect(code).toBe(0);
    } finally {
      rmSync(check, { recursive: true, force: true });
    }
  });
});

describe('verifyCallback', () => {
  it("accepts a real xtimer callback signed with the app's secret, and refuses a changed one", async () => {
    const heartbeat = await eventually(
      () => e2e.sink.deliveries.find((d) => d.path === '/beat' && d.headers['webhook-signature']),
      'a signed heartbeat callback',
    );
    const run = verifyCallback({ headers: heartbeat.headers, body: heartbeat.body }, signingSecret);
    expect(run).toEqual({
      taskId: heartbeat.taskId,
      timerId: heartbeat.timerId,
      scheduledAt: heartbeat.scheduledAt,
      attempt: 1,
      trigger: 'schedule',
    });
    // The same from a fetch Headers.
    const headers = new Headers();
    for (const [k, v] of Object.entries(heartbeat.headers)) if (typeof v === 'string') headers.set(k, v);
    expect(verifyCallback({ headers, body: heartbeat.body }, signingSecret)).toEqual(run);

    expect(() =>
      verifyCallback({ headers: heartbeat.headers, body: '{"job":"other"}' }, signingSecret),
    ).toThrow(CallbackVerificationError);
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => verifyCallback({ headers: heartbeat.headers, body: heartbeat.body }, other)).toThrow(
      CallbackVerificationError,
    );
    const { 'webhook-signature': _, ...unsigned } = heartbeat.headers;
    expect(() => verifyCallback({ headers: unsigned, body: heartbeat.body }, signingSecret)).toThrow(
      /missing/,
    );
    const moved = { ...heartbeat.headers, 'x-xtimer-task-id': `${heartbeat.timerId}_1` };
    expect(() => verifyCallback({ headers: moved, body: heartbeat.body }, signingSecret)).toThrow(
      /does not match/,
    );
  });
});
