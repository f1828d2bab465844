import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runXtimer } from '../helpers/cli.js';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { createTestStores, type TestStores } from '../helpers/stores.js';

/**
 * What the API does that the CLI does too, run as child processes against a real api:
 * apps (create, read, default notification, rotation), an app's calendars, a timer's
 * change, preview and backfills, and the audit log, each as a table and as --json.
 */

const ADMIN_TOKEN = 'admin-token-for-the-cli-apps-tests-0123456789';

let stores: TestStores;
let proc: XtimerProcess;
let base: string;

beforeAll(async () => {
  stores = await createTestStores('cliapps', {
    XTIMER_ADMIN_TOKEN: ADMIN_TOKEN,
    XTIMER_SECRET_KEY: 'secret-key-for-the-cli-apps-tests-0123456789',
    XTIMER_ROLES: 'api',
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = new XtimerProcess('api', { ...stores.env, PORT: String(port), LOG_LEVEL: 'info' });
  await proc.started();
});

afterAll(async () => {
  await proc?.stop();
  await stores?.cleanup();
});

const xtimer = (args: string[]): Promise<CliResult> => runXtimer(base, ADMIN_TOKEN, args);

async function ok(args: string[]): Promise<string> {
  const r = await xtimer(args);
  expect(r.code, `xtimer ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

const json = async <T>(args: string[]): Promise<T> => JSON.parse(await ok([...args, '--json'])) as T;

describe('xtimer apps', () => {
  it('creates an app showing its credentials once, lists and reads it, sets its notification, rotates', async () => {
    const created = await ok(['apps', 'create', 'billing']);
    expect(created).toMatch(
      /Shown this once: keep them now\.\nAPI key: +xtk_\S+\nsigning secret: +whsec_\S+\n$/,
    );
    expect(await json<{ apiKey: string }>(['apps', 'create', 'payroll'])).toMatchObject({
      app: 'payroll',
      apiKey: expect.stringMatching(/^xtk_/),
    });
    expect(await ok(['apps', 'list'])).toMatch(
      /^APP +KEY ID +NOTIFY +CREATED\nbilling +billing:\S+ +\S+\npayroll /,
    );
    const app = await json<{ keyId: string; notify: unknown }>(['apps', 'get', 'billing']);
    expect(app).toMatchObject({ keyId: expect.stringMatching(/^billing:/), notify: null });

    await ok(['apps', 'notify', 'billing', 'http://127.0.0.1:9/notices', '--on', 'failed']);
    expect(await json(['apps', 'get', 'billing'])).toMatchObject({
      notify: { url: 'http://127.0.0.1:9/notices', on: ['failed'] },
    });
    expect(await json(['apps', 'notify', 'billing', '--clear'])).toMatchObject({ notify: null });
    expect(await xtimer(['apps', 'notify', 'billing'])).toMatchObject({ code: 2 });

    const rotated = await json<{ signingSecret: string; previousSecretValidUntil: string | null }>([
      'apps',
      'rotate',
      'billing',
      'secret',
      '--grace',
      '60',
    ]);
    expect(rotated.signingSecret).toMatch(/^whsec_/);
    expect(rotated.previousSecretValidUntil).not.toBeNull();
    // An unset variable is not a grace of 0, which would revoke the old secret at once.
    expect(await xtimer(['apps', 'rotate', 'billing', 'key', '--grace', ''])).toMatchObject({ code: 2 });
    const wrong = await xtimer(['apps', 'rotate', 'billing', 'password']);
    expect(wrong).toMatchObject({ code: 2 });
    expect(wrong.stderr).toMatch(/rotate key or secret/);
    const missing = await xtimer(['apps', 'get', 'nobody']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: [A-Z_]+: /);
  });
});

describe('xtimer calendars, timers update, preview and backfills, and audit', () => {
  it('keeps a calendar the timer skips, changes and previews the timer, backfills it, and shows the audit', async () => {
    await ok(['apps', 'create', 'office']);
    const set = await ok([
      'calendars',
      'set',
      'office',
      'holidays',
      '2030-12-25',
      '2031-01-01',
      '--description',
      'Closed',
    ]);
    expect(set).toBe('office/holidays: Closed (2 dates, updated ' + set.split('updated ')[1]);
    expect(set).toMatch(/\n2030-12-25\n2031-01-01\n$/);
    expect(await ok(['calendars', 'list', 'office'])).toMatch(/\nholidays +2 +Closed /);
    expect(await json(['calendars', 'get', 'office', 'holidays'])).toMatchObject({
      dates: ['2030-12-25', '2031-01-01'],
    });
    const badDate = await xtimer(['calendars', 'set', 'office', 'other', '2030-13-01']);
    expect(badDate.code).toBe(1);
    expect(badDate.stderr).toMatch(/not a date YYYY-MM-DD/);

    const timer = await json<{ id: number }>([
      'timers',
      'create',
      '--data',
      JSON.stringify({
        app: 'office',
        name: 'daily',
        cron: '0 0 9 * * *',
        callback: { url: 'http://127.0.0.1:9/hooks' },
      }),
    ]);
    const id = String(timer.id);
    expect(
      await json([
        'timers',
        'update',
        id,
        '--data',
        '{"skipCalendars": ["holidays"], "description": "at nine"}',
      ]),
    ).toMatchObject({ skipCalendars: ['holidays'], description: 'at nine' });
    expect(await xtimer(['timers', 'update', id])).toMatchObject({ code: 2 });
    const stale = await xtimer(['timers', 'update', id, '--data', '{}', '--if-match', '"1"']);
    expect(stale.code).toBe(1);

    const from = '2030-12-24T00:00:00Z';
    const next = await json<{ items: string[] }>(['timers', 'preview', id, '--from', from, '--count', '2']);
    expect(next.items).toEqual(['2030-12-24T09:00:00.000+00:00', '2030-12-26T09:00:00.000+00:00']);
    const explained = await ok(['timers', 'preview', id, '--from', from, '--count', '2', '--explain']);
    expect(explained).toBe(
      '2030-12-24T09:00:00.000+00:00\n2030-12-25T09:00:00.000+00:00  skipped: calendar holidays\n',
    );
    const inUse = await xtimer(['calendars', 'delete', 'office', 'holidays']);
    expect(inUse.code).toBe(1);

    const day = 86_400_000;
    const fromDay = new Date(Math.floor(Date.now() / day) * day - 2 * day).toISOString();
    const toDay = new Date(Math.floor(Date.now() / day) * day).toISOString();
    const started = await ok(['timers', 'backfill', id, '--from', fromDay, '--to', toDay]);
    const backfill = /^Backfill (\d+) of timer/.exec(started)?.[1];
    expect(backfill, started).toBeDefined();
    expect(await ok(['timers', 'backfills', id])).toMatch(
      new RegExp(`^ID +STATUS +FROM +TO +SENT +ENDED +FAILED +CREATED\\n${backfill} +sending `),
    );
    expect(await json(['timers', 'backfills', id, backfill!])).toMatchObject({
      id: Number(backfill),
      planned: 2,
    });
    expect(await ok(['timers', 'backfill-cancel', id, backfill!])).toMatch(
      new RegExp(`^Backfill ${backfill} of timer ${id} cancelled: `),
    );
    expect(await xtimer(['timers', 'backfills', id, 'x'])).toMatchObject({ code: 2 });

    const audit = await ok(['audit', '--app', 'office']);
    expect(audit).toMatch(/^AT +ACTOR +ACTION +APP +TIMER +FIELDS\n/);
    expect(audit).toMatch(new RegExp(`admin +update +office +${id} +.*description`));
    const entries = await json<Array<{ action: string; timerId: number | null }>>(['audit', '--timer', id]);
    expect(entries.map((e) => e.action)).toContain('create');
    expect(entries.every((e) => e.timerId === timer.id)).toBe(true);
  });
});

describe('an xtimer the CLI cannot reach', () => {
  it('says where it looked and how to point it elsewhere', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const r = await runXtimer(nowhere, ADMIN_TOKEN, ['timers', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /ECONNREFUSED 127\.0\.0\.1:\d+\)\nIs xtimer running there\? Give its address with --url or XTIMER_URL\.\n$/,
    );
  });
});
