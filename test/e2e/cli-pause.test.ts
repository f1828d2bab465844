import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runXtimer } from '../helpers/cli.js';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { createTestStores, type TestStores } from '../helpers/stores.js';

/**
 * `xtimer pause` and `xtimer resume`, run as child processes against a real service: one
 * timer or a whole app, with a note and an `--until` given as a time or a duration, as a
 * table and as --json, and the errors a script must be able to tell apart.
 */

const ADMIN_TOKEN = 'admin-token-for-the-cli-pause-tests-0123456789';

let stores: TestStores;
let proc: XtimerProcess;
let base: string;
/** App pausing's API key: it reaches only its own timers. */
let appKey: string;

interface TimerJson {
  id: number;
  status: string;
  pausedNote: string | null;
  pausedUntil: string | null;
}

beforeAll(async () => {
  stores = await createTestStores('clipause', {
    XTIMER_ADMIN_TOKEN: ADMIN_TOKEN,
    XTIMER_SECRET_KEY: 'secret-key-for-the-cli-pause-tests-0123456789',
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = new XtimerProcess('all-roles', { ...stores.env, PORT: String(port), LOG_LEVEL: 'info' });
  await proc.started();
  for (const app of ['pausing', 'other']) {
    const res = await api('POST', '/api/v1/apps', { app });
    expect(res.status).toBe(201);
    if (app === 'pausing') appKey = ((await res.json()) as { apiKey: string }).apiKey;
  }
});

afterAll(async () => {
  await proc?.stop();
  await stores?.cleanup();
});

const xtimer = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runXtimer(base, ADMIN_TOKEN, args, env);

function api(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** An active timer of `app` whose runs are hours away: pausing it is all that happens to it. */
async function activeTimer(app: string, name: string): Promise<number> {
  const res = await api('POST', '/api/v1/timers', {
    app,
    name,
    cron: '0 0 3 * * *',
    status: 'active',
    callback: { url: 'http://127.0.0.1:9/hooks/run' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

const timer = async (id: number): Promise<TimerJson> =>
  (await (await api('GET', `/api/v1/timers/${id}`)).json()) as TimerJson;

/** Asserts `iso` lies `ms` after a moment between `before` and now. */
function expectAfter(iso: string | null, ms: number, before: number): void {
  const at = Date.parse(iso ?? '');
  expect(at).toBeGreaterThanOrEqual(before + ms - 1000);
  expect(at).toBeLessThanOrEqual(Date.now() + ms + 1000);
}

describe('xtimer pause <timer>', () => {
  it('pauses one timer with a note until a time given as a duration or as an ISO time', async () => {
    const id = await activeTimer('pausing', 'nightly');
    const before = Date.now();
    const paused = await xtimer(['pause', String(id), '--note', 'INC-7: receiver down', '--until', '30m']);
    expect(paused.code, paused.stderr).toBe(0);
    const after = await timer(id);
    expect(after).toMatchObject({ status: 'inactive', pausedNote: 'INC-7: receiver down' });
    expectAfter(after.pausedUntil, 30 * 60_000, before);
    expect(paused.stdout).toBe(
      `Paused timer ${id} (pausing/nightly) until ${after.pausedUntil}: INC-7: receiver down\n` +
        `Resume it with: xtimer resume ${id}\n`,
    );

    // The timer as the CLI shows it says so too.
    const shown = await xtimer(['timers', 'get', String(id)]);
    expect(shown.stdout).toMatch(new RegExp(`\\npaused +INC-7: receiver down until ${after.pausedUntil}\\n`));

    // Pausing a paused timer replaces its pause; --json answers the timer.
    const until = '2099-01-01T09:00:00.000Z';
    const again = await xtimer(['pause', String(id), '--until', until, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id, status: 'inactive', pausedUntil: until });
    // `timers disable` takes a duration the same way.
    const disabled = await xtimer(['timers', 'disable', String(id), '--until', '2h', '--json']);
    expectAfter(JSON.parse(disabled.stdout).pausedUntil, 2 * 3_600_000, before);
  });

  it('refuses what it cannot do: no target, both targets, an --until that is neither, an unknown timer', async () => {
    const none = await xtimer(['pause']);
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toMatch(/^error: pause needs a timer id, or --app <name>/);
    expect((await xtimer(['pause', '1', '--app', 'pausing'])).stderr).toMatch(/not both/);
    const vague = await xtimer(['pause', '1', '--until', 'soon']);
    expect(vague.code).toBe(2);
    expect(vague.stderr).toMatch(
      /--until "soon": expected an ISO time .* or a duration from now \(30m, 2h\)/,
    );
    expect((await xtimer(['resume'])).code).toBe(2);
    const missing = await xtimer(['pause', '999999', '--json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/TIMER_NOT_FOUND: timer 999999 does not exist/);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'TIMER_NOT_FOUND' });
    // A time in the past is the API's to refuse, and it says why.
    const id = await activeTimer('pausing', 'past');
    const past = await xtimer(['pause', String(id), '--until', '2001-01-01T00:00:00Z']);
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/until: must be in the future/);
    expect((await timer(id)).status).toBe('active');
  });
});

describe('xtimer resume <timer>', () => {
  it('makes a paused timer active again and clears its pause', async () => {
    const id = await activeTimer('pausing', 'resumed');
    expect((await xtimer(['pause', String(id), '--note', 'for a while'])).code).toBe(0);
    const resumed = await xtimer(['resume', String(id)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(`Resumed timer ${id} (pausing/resumed): its runs are planned again.\n`);
    expect(await timer(id)).toMatchObject({ status: 'active', pausedNote: null, pausedUntil: null });
    const json = await xtimer(['resume', String(id), '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, status: 'active' });
  });
});

describe('xtimer pause --app', () => {
  it("pauses every active timer of an app with one note and until, and no other app's", async () => {
    const ids = [await activeTimer('bulk', 'a'), await activeTimer('bulk', 'b')];
    const bystander = await activeTimer('other', 'bystander');
    const before = Date.now();
    const paused = await xtimer(['pause', '--app', 'bulk', '--note', 'deploy freeze', '--until', '2h']);
    expect(paused.code, paused.stderr).toBe(0);
    for (const id of ids) {
      const t = await timer(id);
      expect(t).toMatchObject({ status: 'inactive', pausedNote: 'deploy freeze' });
      expectAfter(t.pausedUntil, 2 * 3_600_000, before);
    }
    expect(paused.stdout).toBe(
      `Paused 2 timers of app bulk until ${(await timer(ids[0]!)).pausedUntil}: deploy freeze\n` +
        'Resume them with: xtimer resume --app bulk\n',
    );
    expect((await timer(bystander)).status).toBe('active');
    // Nothing active is left to pause: 0, as JSON for a script.
    const json = await xtimer(['pause', '--app', 'bulk', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ app: 'bulk', changed: 0 });
  });

  it("is refused another app's key, which reaches only its own app", async () => {
    const other = await xtimer(['pause', '--app', 'other', '--note', 'not mine'], { XTIMER_TOKEN: appKey });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^error: FORBIDDEN: /);
    const own = await xtimer(['pause', '--app', 'pausing', '--json'], { XTIMER_TOKEN: appKey });
    expect(own.code, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({ app: 'pausing' });
  });
});

describe('xtimer resume --app', () => {
  it('makes every disabled timer of an app active again', async () => {
    const ids = [await activeTimer('thaw', 'a'), await activeTimer('thaw', 'b')];
    expect((await xtimer(['pause', '--app', 'thaw', '--note', 'freeze'])).code).toBe(0);
    const resumed = await xtimer(['resume', '--app', 'thaw']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Resumed 2 timers of app thaw.\n');
    for (const id of ids) expect(await timer(id)).toMatchObject({ status: 'active', pausedNote: null });
    expect(JSON.parse((await xtimer(['resume', '--app', 'thaw', '--json'])).stdout)).toEqual({
      app: 'thaw',
      changed: 0,
    });
  });
});
