import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { executeJobs } from '../../../src/storage/redis/queues.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../helpers/stores.js';

/**
 * The dashboard in the api app: bull-board at /dashboard/queues, the timers
 * pages at /dashboard/timers (list, one timer, create, edit, delete, run now, retry,
 * enable, disable), the failed runs and the changes, the emergency brake in every page's
 * header, all behind basic auth when DASHBOARD_USER/PASSWORD are set; every form
 * same-origin and carrying the CSRF token.
 */

let stores: TestStores;
let core: Core;
let open: App;
let locked: App;

const CREDENTIALS = { username: 'ops', password: 's3cret:with:colons' };
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

beforeAll(async () => {
  stores = await createTestStores('dashboard');
  core = createTestCore(stores);
  open = createTestApp(core);
  locked = createTestApp(core, { dashboardAuth: CREDENTIALS });
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

async function page(app: App, path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const DASHBOARD_PATHS = [
  '/dashboard/queues',
  '/dashboard/queues/',
  '/dashboard/queues/queue/execute',
  '/dashboard/queues/api/queues',
  '/dashboard/timers',
  '/dashboard/timers/',
];

describe('basic auth over the dashboard', () => {
  it.each(DASHBOARD_PATHS)('answers 401 with a challenge at %s without credentials', async (path) => {
    const res = await page(locked, path);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="xtimer dashboard"/);
  });

  it.each(DASHBOARD_PATHS)('answers 200 at %s with the right credentials', async (path) => {
    const res = await page(locked, path, basic(CREDENTIALS.username, CREDENTIALS.password));
    expect(res.status).toBe(200);
  });

  it('answers 401 to a wrong password and to a wrong user', async () => {
    expect((await page(locked, '/dashboard/timers', basic('ops', 'nope'))).status).toBe(401);
    expect((await page(locked, '/dashboard/queues', basic('root', CREDENTIALS.password))).status).toBe(401);
  });

  it('leaves the API and health checks without auth', async () => {
    expect((await page(locked, '/healthz')).status).toBe(200);
    expect((await page(locked, '/api/v1/timers')).status).toBe(200);
  });

  it('is open when no credentials are configured', async () => {
    expect((await page(open, '/dashboard/queues')).status).toBe(200);
    expect((await page(open, '/dashboard/timers')).status).toBe(200);
  });
});

describe('the home page', () => {
  it('sends a person who opens the address to the console', async () => {
    const res = await open.request('/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/dashboard/timers');
  });
});

describe('the board', () => {
  it('serves bull-board at /dashboard/queues and /dashboard/queues/ with its title and link to the timers page', async () => {
    for (const path of ['/dashboard/queues', '/dashboard/queues/']) {
      const res = await page(open, path);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<title>xtimer</title>');
      expect(res.text).toContain('/dashboard/timers');
    }
  });

  it('lists the trigger and execute queues with their descriptions', async () => {
    const res = await call(open, 'GET', '/dashboard/queues/api/queues');
    expect(res.status).toBe(200);
    const names = res.body.queues.map((q: any) => q.name);
    expect(names).toEqual(expect.arrayContaining(['trigger', 'execute']));
    const execute = res.body.queues.find((q: any) => q.name === 'execute');
    expect(execute.description).toMatch(/task key/);
    expect(execute.readOnlyMode).toBe(true);
  });

  it('shows an execute job under its task key with the timer and scheduled time in its name', async () => {
    const runAt = Date.UTC(2030, 0, 2, 10, 5, 3);
    await core.queues.execute.add(
      `42_${runAt}`,
      { timerId: 42, runAt, slice: 'test' },
      {
        jobId: `42_${runAt}`,
        delay: 3_600_000,
      },
    );
    const res = await call(open, 'GET', `/dashboard/queues/api/queues/execute/42_${runAt}`);
    expect(res.status).toBe(200);
    expect(res.body.job.name).toBe(`42_${runAt} · timer 42 at 2030-01-02T10:05:03.000Z`);
    expect(res.body.job.data).toMatchObject({ timerId: 42, runAt, runAtUtc: '2030-01-02T10:05:03.000Z' });
    expect(res.body.job.externalUrl.href).toBe(`/dashboard/timers/42?at=${runAt}`);
    await core.queues.execute.remove(`42_${runAt}`);
  });

  it('shows a batch of runs with each run by task key and time', async () => {
    const runAt = Date.UTC(2030, 0, 2, 10, 5, 3);
    const [job] = executeJobs(
      [
        { timerId: 42, runAt },
        { timerId: 43, runAt },
      ],
      '2030-01-02T10:05_7',
    );
    await core.queues.execute.add(job!.name, job!.data, { ...job!.opts, delay: 3_600_000 });
    const res = await call(open, 'GET', `/dashboard/queues/api/queues/execute/${job!.opts.jobId}`);
    expect(res.status).toBe(200);
    expect(res.body.job.name).toBe('2030-01-02T10:05_7 10:05:03Z ×2');
    expect(res.body.job.data).toEqual({
      slice: '2030-01-02T10:05_7',
      runs: [
        { taskKey: `42_${runAt}`, runAtUtc: '2030-01-02T10:05:03.000Z' },
        { taskKey: `43_${runAt}`, runAtUtc: '2030-01-02T10:05:03.000Z' },
      ],
    });
    await core.queues.execute.remove(job!.opts.jobId);
  });

  it('serves its static assets', async () => {
    const index = await page(open, '/dashboard/queues/');
    const script = /src="([^"]+\.js)"/.exec(index.text)?.[1];
    expect(script).toBeDefined();
    const res = await open.request(new URL(script!, 'http://localhost/dashboard/queues/').pathname);
    expect(res.status).toBe(200);
  });
});

/** A browser's visit: the CSRF cookie a page set, and the token its forms carry. */
interface Visit {
  cookie: string;
  csrf: string;
  headers: Record<string, string>;
}

async function visit(app: App, headers: Record<string, string> = {}): Promise<Visit> {
  const res = await app.request('/dashboard/timers', { headers });
  const token = /xtimer_csrf=([A-Za-z0-9_-]{43});/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  expect(token).toBeDefined();
  expect(res.headers.get('set-cookie')).toMatch(/Path=\/dashboard; HttpOnly; SameSite=Strict/);
  return { cookie: `xtimer_csrf=${token}`, csrf: token!, headers };
}

/** A form post as the dashboard's own page sends it. */
async function post(
  app: App,
  v: Visit,
  path: string,
  fields: Record<string, string | string[]> = {},
  extra: Record<string, string> = {},
) {
  const body = new URLSearchParams({ csrf: v.csrf });
  for (const [k, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) body.append(k, one);
  const res = await app.request(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'http://localhost',
      cookie: v.cookie,
      ...v.headers,
      ...extra,
    },
    body: body.toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

async function newTimer(app: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await call(open, 'POST', '/api/v1/timers', timerBody({ app, ...overrides }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function auditOf(timerId: number): Promise<any[]> {
  return (await call(open, 'GET', `/api/v1/audit?timerId=${timerId}`)).body.items;
}

/** The form fields of the create form, for a valid timer. */
function createFields(overrides: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  return {
    app: 'page-new',
    name: `made-on-the-page-${Math.random().toString(36).slice(2, 8)}`,
    cron: '0 */5 * * * *',
    timezone: 'Europe/Berlin',
    callbackUrl: 'http://127.0.0.1:9/hooks/page',
    callbackMethod: 'POST',
    callbackHeaders: 'content-type: application/json\r\nauthorization: Bearer s3cr3t',
    callbackBody: '{"from":"page"}',
    callbackTimeoutMs: '',
    retryMaxAttempts: '2',
    retryBackoffMs: '500',
    overlapPolicy: 'skip',
    notifyUrl: '',
    notifyOn: ['failed'],
    labels: 'team: payments\r\nenv: prod',
    description: 'Made on the page.\r\nTwo lines.',
    ...overrides,
  };
}

describe('the timers list', () => {
  it('lists timers per app with status, schedule, zone, next fire (active only), last outcome and success rate', async () => {
    const active = await newTimer('page-a', { name: 'nightly', status: 'active' });
    const inactive = await newTimer('page-b', { name: 'hourly', cron: '0 0 * * * *', timezone: 'UTC' });
    const now = Date.now();
    for (let i = 1; i <= 4; i++) {
      await recordRun(stores.database, {
        timerId: active.id,
        app: 'page-a',
        runAt: now - i * 60_000,
        status: i === 1 ? 'failed' : 'succeeded',
      });
    }
    const res = await page(open, '/dashboard/timers');
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-app="page-a"');
    expect(res.text).toContain('data-app="page-b"');
    expect(res.text).toContain('0 30 2 * * *');
    expect(res.text).toContain('Asia/Shanghai');
    const row = (id: number) => new RegExp(`<tr id="timer-${id}"[\\s\\S]*?</tr>`).exec(res.text)![0];
    expect(row(active.id)).toMatch(
      /data-field="next"><span class="when"><time [^>]*>in \d+ (?:s|min|h)<\/time><span class="abs">\d{4}-\d{2}-\d{2} 02:30:00 \+08:00<\/span>/,
    );
    expect(row(inactive.id)).toMatch(/data-field="next"><span class="muted">none<\/span>/);
    // Three of four finished runs succeeded; the latest one failed.
    expect(row(active.id)).toMatch(/data-field="success"[^>]*>75%</);
    expect(row(active.id)).toMatch(
      /data-field="last"><div class="last"><span class="badge s-failed">failed<\/span> <span class="when"><time [^>]*>1 min ago<\/time><span class="abs">[^<]*\+08:00<\/span>/,
    );
    expect(row(active.id)).toContain('data-action="trigger"');

    const filtered = await page(open, '/dashboard/timers?app=page-b');
    expect(filtered.text).toContain('hourly');
    expect(filtered.text).not.toContain('data-app="page-a"');
  });

  it('filters by label (repeatable) and name, and keeps the filters in its forms and links', async () => {
    const a = await newTimer('page-l', { name: 'alpha-job', labels: { team: 'payments', env: 'prod' } });
    const b = await newTimer('page-l', { name: 'beta-job', labels: { team: 'payments', env: 'dev' } });
    const c = await newTimer('page-l', { name: 'gamma-job', labels: { team: 'search' } });
    const ids = (text: string) => [...text.matchAll(/<tr id="timer-(\d+)"/g)].map((m) => Number(m[1]));

    const team = await page(open, '/dashboard/timers?app=page-l&label=team:payments');
    expect(ids(team.text)).toEqual([a.id, b.id]);
    expect(team.text).toContain('value="team:payments"');
    const both = await page(open, '/dashboard/timers?app=page-l&label=team:payments&label=env:prod');
    expect(ids(both.text)).toEqual([a.id]);
    const byName = await page(open, '/dashboard/timers?app=page-l&q=GAMMA');
    expect(ids(byName.text)).toEqual([c.id]);
    expect(byName.text).toContain('name="q" value="GAMMA"');
    // A form on the filtered list comes back to the filtered list.
    expect(both.text).toContain(
      'name="back" value="/dashboard/timers?app=page-l&amp;label=team:payments&amp;label=env:prod"',
    );
    expect((await page(open, '/dashboard/timers?label=no-colon')).status).toBe(400);
  });

  it('escapes names, labels and outputs a user supplied', async () => {
    const created = await newTimer('page-esc', {
      name: '<script>alert("x")</script>',
      labels: { x: '<img src=x onerror=alert(1)>' },
      description: '<b>bold</b>',
    });
    for (const path of ['/dashboard/timers?app=page-esc', `/dashboard/timers/${created.id}`]) {
      const res = await page(open, path);
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    }
  });
});

describe('one timer', () => {
  it('shows the definition with labels and description, the next fire times and an empty run list', async () => {
    const created = await newTimer('page-d', {
      name: 'detail',
      labels: { team: 'ops' },
      description: 'Explains itself.',
      status: 'active',
    });
    const res = await page(open, `/dashboard/timers/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('POST http://127.0.0.1:9/hooks/run');
    expect(res.text).toContain('data-label="team:ops"');
    expect(res.text).toContain('Explains itself.');
    expect((res.text.match(/ 02:30:00 \+08:00<\/time>/g) ?? []).length).toBe(10);
    expect(res.text).toContain('id="no-runs"');
  });

  it("shows a run's lateness as its first call's, the attempts beside it, and a Retry on failed and missed runs", async () => {
    const created = await newTimer('page-r');
    const runAt = Date.now() - 120_000;
    await recordRun(stores.database, {
      timerId: created.id,
      app: 'page-r',
      runAt,
      status: 'failed',
      attempts: 3,
      firstLateMs: 1,
      error: 'HTTP 503',
    });
    await recordRun(stores.database, {
      timerId: created.id,
      app: 'page-r',
      runAt: runAt + 1000,
      status: 'succeeded',
    });
    const res = await page(open, `/dashboard/timers/${created.id}`);
    const failed = new RegExp(`<tr id="run-${created.id}_${runAt}"[\\s\\S]*?</tr>`).exec(res.text)![0];
    expect(failed).toMatch(
      /data-field="lateness" title="how late the first call left · attempt 3 sent at [^"]+">1 ms</,
    );
    expect(failed).toMatch(/data-field="attempts">3</);
    expect(failed).toContain('data-action="retry"');
    const ok = new RegExp(`<tr id="run-${created.id}_${runAt + 1000}"[\\s\\S]*?</tr>`).exec(res.text)![0];
    expect(ok).not.toContain('data-action="retry"');
  });

  it('opens a run in flight: the earlier answers kept, the older attempts counted, the call under way said', async () => {
    const created = await newTimer('page-i');
    const runAt = Date.now() - 300_000;
    const earlier = [4, 5, 6].map((attempt) => ({
      attempt,
      sentAt: runAt + attempt * 1000,
      httpStatus: 503,
      output: `busy ${attempt}`,
      bodyBytes: 6,
      durationMs: attempt,
      error: 'HTTP 503',
      headers: { 'x-attempt-seen': String(attempt) },
    }));
    await recordRun(stores.database, {
      timerId: created.id,
      app: 'page-i',
      runAt,
      status: 'running',
      attempts: 7,
      answers: { attempt: 7, earlier },
    });
    const res = await page(open, `/dashboard/timers/${created.id}/runs/${created.id}_${runAt}`);
    expect(res.status).toBe(200);
    for (const n of [4, 5, 6]) {
      const section = new RegExp(`<section class="attempt" id="attempt-${n}"[\\s\\S]*?</section>`).exec(
        res.text,
      )![0];
      expect(section).toContain(`busy ${n}`);
      expect(section).toContain('x-attempt-seen');
      expect(section).toContain('6 bytes, kept whole');
    }
    expect(res.text).toMatch(/id="attempt-7"[\s\S]*?data-field="in-flight"/);
    expect(res.text).toContain('The answers of 3 earlier attempts are not kept');
    expect(res.text).toContain('(3 kept of 7 attempts)');
  });

  it('answers an unknown timer with a 404 page and a bad filter with a 400 page', async () => {
    const missing = await page(open, '/dashboard/timers/999999999');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/text\/html/);
    expect((await page(open, '/dashboard/timers/abc')).status).toBe(404);
    expect((await page(open, '/dashboard/timers?status=bogus')).status).toBe(400);
    const created = await newTimer('page-f', { name: 'bad-at' });
    expect((await page(open, `/dashboard/timers/${created.id}?at=yesterday`)).status).toBe(400);
  });

  it("previews a cron as typed with the preview API's answer, in the zone asked, saving nothing", async () => {
    const res = await call(
      open,
      'GET',
      `/dashboard/timers/preview?count=5&cron=${encodeURIComponent('0 15 9 * * *')}&timezone=Europe/Berlin`,
    );
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('Europe/Berlin');
    expect(res.body.items).toHaveLength(5);
    for (const t of res.body.items) expect(t).toMatch(/T09:15:00\.000\+0[12]:00$/);
    const bad = await call(open, 'GET', `/dashboard/timers/preview?cron=${encodeURIComponent('0 61 * * *')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_CRON');
    expect(
      (await call(open, 'GET', '/dashboard/timers/preview?cron=*+*+*+*+*&timezone=Mars/Base')).body.error
        .code,
    ).toBe('INVALID_TIMEZONE');
  });
});

describe('the actions', () => {
  it('enables and disables a timer from its forms, sends the browser back and says what it did', async () => {
    const v = await visit(open);
    const { id } = await newTimer('page-e', { name: 'toggle' });
    const enabled = await post(open, v, `/dashboard/timers/${id}/enable`, {
      back: '/dashboard/timers?app=page-e',
    });
    expect(enabled.status).toBe(303);
    expect(enabled.location).toBe('/dashboard/timers?app=page-e&done=enabled');
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('active');
    expect((await page(open, enabled.location!)).text).toContain('data-done="enabled"');

    const disabled = await post(open, v, `/dashboard/timers/${id}/disable`, {
      back: 'https://evil.example/',
    });
    expect(disabled.location).toBe(`/dashboard/timers/${id}?done=disabled`);
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');
    expect((await auditOf(id)).map((e) => [e.action, e.actor, e.before, e.after])).toEqual([
      ['disable', 'open', { status: 'active' }, { status: 'inactive' }],
      ['enable', 'open', { status: 'inactive' }, { status: 'active' }],
      ['create', 'open', null, expect.objectContaining({ name: 'toggle' })],
    ]);
  });

  it('runs a timer now and retries a failed run, each through the run controls, and audited', async () => {
    const v = await visit(open);
    const { id } = await newTimer('page-run');
    const triggered = await post(open, v, `/dashboard/timers/${id}/trigger`, {
      back: `/dashboard/timers/${id}`,
    });
    expect(triggered.status).toBe(303);
    const task = /[?&]task=(\d+_\d+)/.exec(triggered.location!)?.[1];
    expect(triggered.location).toMatch(
      new RegExp(`^/dashboard/timers/${id}\\?done=triggered&task=${id}_\\d+$`),
    );
    const runs = (await call(open, 'GET', `/api/v1/timers/${id}/tasks`)).body.items;
    expect(runs).toEqual([expect.objectContaining({ id: task, trigger: 'manual' })]);

    const runAt = Date.now() - 60_000;
    await recordRun(stores.database, {
      timerId: id,
      app: 'page-run',
      runAt,
      status: 'failed',
      error: 'HTTP 500',
    });
    const retried = await post(open, v, `/dashboard/timers/${id}/runs/${id}_${runAt}/retry`, {
      back: '/dashboard/runs?status=failed',
    });
    expect(retried.location).toBe(`/dashboard/runs?status=failed&done=retried&task=${id}_${runAt}`);
    const again = (
      await call(open, 'GET', `/api/v1/timers/${id}/tasks?status=pending,running,succeeded,failed`)
    ).body.items;
    expect(again.find((t: any) => t.id === `${id}_${runAt}`)).toMatchObject({ trigger: 'retry' });
    // A run that is not failed or missed cannot be retried: the error page says so.
    const refused = await post(open, v, `/dashboard/timers/${id}/runs/${task}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('only a failed or missed run can be retried');
    const actions = (await auditOf(id)).map((e) => [e.action, e.after?.taskId]);
    expect(actions.slice(0, 2)).toEqual([
      ['retry', `${id}_${runAt}`],
      ['trigger', task],
    ]);
  });

  it('creates a timer from the form, with its labels, description, headers and policies', async () => {
    const v = await visit(open);
    const fields = createFields({ active: 'on' });
    const res = await post(open, v, '/dashboard/timers/new', fields);
    expect(res.status, res.text.slice(0, 2000)).toBe(303);
    const id = Number(/^\/dashboard\/timers\/(\d+)\?done=created$/.exec(res.location!)?.[1]);
    const timer = (await call(open, 'GET', `/api/v1/timers/${id}`)).body;
    expect(timer).toMatchObject({
      app: 'page-new',
      name: fields.name,
      cron: '0 */5 * * * *',
      timezone: 'Europe/Berlin',
      status: 'active',
      callback: {
        url: 'http://127.0.0.1:9/hooks/page',
        headers: { 'content-type': 'application/json', authorization: 'Bearer s3cr3t' },
        body: '{"from":"page"}',
        timeoutMs: 5000,
      },
      retry: { maxAttempts: 2, backoffMs: 500 },
      overlapPolicy: 'skip',
      notify: null,
      labels: { team: 'payments', env: 'prod' },
      description: 'Made on the page.\nTwo lines.',
    });
    // The audit entry masks the credential.
    const [created] = await auditOf(id);
    expect(created.after['callback.headers']).toEqual({
      'content-type': 'application/json',
      authorization: '***',
    });
  });

  it("shows the API's error beside the field and saves nothing when the form is wrong", async () => {
    const v = await visit(open);
    const before = await count('timers');
    const cases: Array<[Record<string, string | string[]>, string, RegExp]> = [
      [{ cron: '0 61 * * * *' }, 'cron', /minute field: .*61.* out of range 0-59/],
      [{ timezone: 'Mars/Olympus' }, 'timezone', /is not an IANA time zone name/],
      [{ callbackUrl: 'ftp://x' }, 'callbackUrl', /must be an absolute http\(s\) URL/],
      [{ callbackUrl: 'http://169.254.169.254/x' }, 'callbackUrl', /link-local|blocked|refused|not allowed/i],
      [{ labels: 'bad key!: x' }, 'labels', /label key/],
      [{ callbackHeaders: 'no colon here' }, 'callbackHeaders', /is not name: value/],
      [{ callbackHeaders: '__proto__: x' }, 'callbackHeaders', /cannot be a name/],
      [{ labels: '__proto__: x' }, 'labels', /cannot be a name/],
      [{ retryMaxAttempts: 'many' }, 'retryMaxAttempts', /whole number/],
      [{ description: 'x'.repeat(1025) }, 'description', /at most 1024 bytes/],
    ];
    for (const [override, field, message] of cases) {
      const res = await post(open, v, '/dashboard/timers/new', createFields(override));
      expect(res.status, JSON.stringify(override)).toBe(400);
      const shown = new RegExp(`data-error-for="${field}">([^<]*)<`).exec(res.text)?.[1] ?? '';
      expect(shown, `${field}: ${res.text.match(/data-error-for="[^"]+">[^<]*/g)}`).toMatch(message);
      expect(res.text).toContain('Nothing was saved');
    }
    const taken = await newTimer('page-new', { name: 'taken' });
    const dup = await post(open, v, '/dashboard/timers/new', createFields({ name: taken.name }));
    expect(dup.status).toBe(409);
    expect(dup.text).toMatch(/data-error-for="name">app page-new already has a timer named/);
    expect(await count('timers')).toBe(before + 1);
  });

  it('edits a timer: only what changed is sent, a masked credential is kept, and the change is audited', async () => {
    const v = await visit(open);
    const { id } = await newTimer('page-edit', {
      status: 'active',
      callback: { url: 'http://127.0.0.1:9/e', headers: { authorization: 'Bearer keep-me', 'x-a': '1' } },
    });
    const form = await page(open, `/dashboard/timers/${id}/edit`);
    expect(form.status).toBe(200);
    expect(form.text).not.toContain('keep-me');
    expect(form.text).toContain('authorization: ***');
    expect(form.text).toContain('data-src="/dashboard/timers/preview"');
    expect((form.text.match(/<li>\d{4}-\d{2}-\d{2} 02:30:00 \+08:00<\/li>/g) ?? []).length).toBe(5);
    const fields = Object.fromEntries(
      [
        ...form.text.matchAll(/<input type="(?:text|url|number)" id="f-\w+" name="(\w+)" value="([^"]*)"/g),
      ].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]),
    );
    const textareas = Object.fromEntries(
      [...form.text.matchAll(/<textarea id="f-\w+" name="(\w+)"[^>]*>([^<]*)<\/textarea>/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    const version = (
      await stores.database.pool.query('SELECT version FROM timers WHERE id = ?', [id])
    )[0] as any[];
    const res = await post(open, v, `/dashboard/timers/${id}/edit`, {
      ...fields,
      ...textareas,
      callbackMethod: 'POST',
      overlapPolicy: 'allow',
      notifyOn: ['failed', 'missed'],
      cron: '0 0 4 * * *',
      labels: 'team: ops',
    });
    expect(res.status, res.text.slice(0, 2000)).toBe(303);
    expect(res.location).toBe(`/dashboard/timers/${id}?done=updated`);
    const timer = (await call(open, 'GET', `/api/v1/timers/${id}`)).body;
    expect(timer.cron).toBe('0 0 4 * * *');
    expect(timer.labels).toEqual({ team: 'ops' });
    expect(timer.callback.headers).toEqual({ authorization: 'Bearer keep-me', 'x-a': '1' });
    const [entry] = await auditOf(id);
    expect(entry).toMatchObject({
      action: 'update',
      actor: 'open',
      before: { cron: '0 30 2 * * *', labels: {} },
      after: { cron: '0 0 4 * * *', labels: { team: 'ops' } },
    });
    expect(Object.keys(entry.after).sort()).toEqual(['cron', 'labels']);
    const after = (
      await stores.database.pool.query('SELECT version FROM timers WHERE id = ?', [id])
    )[0] as any[];
    expect(after[0].version).toBe(version[0].version + 1);

    const bad = await post(open, v, `/dashboard/timers/${id}/edit`, {
      ...fields,
      ...textareas,
      cron: '* * *',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/data-error-for="cron">/);
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).body.cron).toBe('0 0 4 * * *');
  });

  it('deletes a timer only after its confirm step', async () => {
    const v = await visit(open);
    const { id, name } = await newTimer('page-del');
    const confirm = await page(open, `/dashboard/timers/${id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`Delete timer ${name}?`);
    expect(confirm.text).toContain('data-action="confirm-delete"');
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).status).toBe(200);
    const res = await post(open, v, `/dashboard/timers/${id}/delete`);
    expect(res.location).toBe('/dashboard/timers?done=deleted');
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).status).toBe(404);
    expect((await auditOf(id))[0]).toMatchObject({ action: 'delete', after: null, before: { name } });
  });

  it('records the changes made behind basic auth as the admin', async () => {
    const v = await visit(locked, basic(CREDENTIALS.username, CREDENTIALS.password));
    const { id } = await newTimer('page-admin');
    expect((await post(locked, v, `/dashboard/timers/${id}/enable`)).status).toBe(303);
    expect((await auditOf(id))[0]).toMatchObject({ action: 'enable', actor: 'admin' });
  });
});

describe('cross-site defences of the forms', () => {
  it('refuses a post without the token, with a token that is not the cookie, and from another origin', async () => {
    const v = await visit(open);
    const other = await visit(open);
    const { id } = await newTimer('page-x', { name: 'csrf' });
    const noToken = await open.request(`/dashboard/timers/${id}/enable`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://localhost',
        cookie: v.cookie,
      },
      body: '',
    });
    expect(noToken.status).toBe(403);
    expect((await post(open, { ...v, csrf: other.csrf }, `/dashboard/timers/${id}/enable`)).status).toBe(403);
    expect((await post(open, { ...v, cookie: '' }, `/dashboard/timers/${id}/enable`)).status).toBe(403);
    expect(
      (await post(open, v, `/dashboard/timers/${id}/enable`, {}, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(
      (
        await post(open, v, '/dashboard/timers/new', createFields(), {
          'sec-fetch-site': 'same-site',
          origin: 'http://localhost:3000',
        })
      ).status,
    ).toBe(403);
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');
    expect(await auditOf(id)).toHaveLength(1); // its create only
  });

  it('gives the pages a token once and keeps it', async () => {
    const v = await visit(open);
    const again = await open.request('/dashboard/timers', { headers: { cookie: v.cookie } });
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.text()).toContain(`name="csrf" value="${v.csrf}"`);
  });
});

describe('the failed runs and the changes', () => {
  it('lists the failed runs of every timer, newest first, each with a Retry', async () => {
    const a = await newTimer('page-fail-a', { timezone: 'Asia/Tokyo' });
    const b = await newTimer('page-fail-b');
    const now = Date.now();
    await recordRun(stores.database, {
      timerId: a.id,
      app: 'page-fail-a',
      runAt: now - 5000,
      status: 'failed',
      error: 'HTTP 502',
    });
    await recordRun(stores.database, {
      timerId: b.id,
      app: 'page-fail-b',
      runAt: now - 4000,
      status: 'failed',
      error: 'boom',
    });
    await recordRun(stores.database, {
      timerId: b.id,
      app: 'page-fail-b',
      runAt: now - 3000,
      status: 'missed',
    });
    const res = await page(open, '/dashboard/runs?status=failed');
    expect(res.status).toBe(200);
    const order = [...res.text.matchAll(/<tr id="run-(\d+_\d+)"/g)].map((m) => m[1]);
    expect(order.indexOf(`${b.id}_${now - 4000}`)).toBeLessThan(order.indexOf(`${a.id}_${now - 5000}`));
    expect(order).not.toContain(`${b.id}_${now - 3000}`);
    expect(res.text).toMatch(/\+09:00<\/time>/);
    expect(res.text).toContain(`/dashboard/timers/${a.id}/runs/${a.id}_${now - 5000}/retry`);
    const oneApp = await page(open, '/dashboard/runs?status=missed&app=page-fail-b');
    expect([...oneApp.text.matchAll(/<tr id="run-(\d+_\d+)"/g)].map((m) => m[1])).toEqual([
      `${b.id}_${now - 3000}`,
    ]);
    expect((await page(open, '/dashboard/runs?status=succeeded')).status).toBe(400);
    expect((await page(open, '/dashboard/runs?cursor=nope')).status).toBe(400);
  });

  it("shows the changes per app and per timer, and points the board's users at the failed runs", async () => {
    const { id } = await newTimer('page-audit', { name: 'audited' });
    await call(open, 'PATCH', `/api/v1/timers/${id}`, { description: 'changed' });
    const perApp = await page(open, '/dashboard/audit?app=page-audit');
    expect(perApp.status).toBe(200);
    expect([...perApp.text.matchAll(/<tr data-action="(\w+)"/g)].map((m) => m[1])).toEqual([
      'update',
      'create',
    ]);
    expect(perApp.text).toContain('changed');
    const perTimer = await page(open, `/dashboard/timers/${id}`);
    expect(perTimer.text).toMatch(/id="audit-table"[\s\S]*data-action="update"/);
    expect((await page(open, '/dashboard/audit?timerId=x')).status).toBe(400);

    const queues = await call(open, 'GET', '/dashboard/queues/api/queues');
    const execute = queues.body.queues.find((q: any) => q.name === 'execute');
    expect(execute.description).toContain('/dashboard/runs?status=failed');
    expect((await page(open, '/dashboard/queues')).text).toContain('Failed runs');
  });
});

describe('the emergency brake in the header', () => {
  /** Every page the dashboard renders itself, and a 404 among them. */
  async function pagesOf(id: number): Promise<string[]> {
    return [
      '/dashboard/timers',
      `/dashboard/timers/${id}`,
      `/dashboard/timers/${id}/edit`,
      `/dashboard/timers/${id}/delete`,
      '/dashboard/timers/new',
      '/dashboard/runs?status=failed',
      '/dashboard/audit',
      '/dashboard/timers/999999999',
    ];
  }

  it('offers every page a folded "Pause everything" that asks for a note, with the token and the way back', async () => {
    const v = await visit(open);
    const { id } = await newTimer('page-brake');
    for (const path of await pagesOf(id)) {
      const res = await open.request(path, { headers: { cookie: v.cookie } });
      const text = await res.text();
      expect(text, path).toContain('<details class="brake-off" id="service-pause" data-paused="false">');
      expect(text, path).toMatch(
        /<form method="post" action="\/dashboard\/service\/pause"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="back" value="([^"]+)">/,
      );
      const [, csrf, back] =
        /action="\/dashboard\/service\/pause"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="back" value="([^"]+)">/.exec(
          text,
        )!;
      expect(csrf).toBe(v.csrf);
      expect(back!.replaceAll('&amp;', '&')).toBe(path);
      expect(text, path).toContain('<label for="brake-note">');
      expect(text, path).toContain('<input id="brake-note" name="note" required maxlength="1024"');
      expect(text, path).not.toContain('data-action="resume-all"');
    }
  });

  it('pauses everything from the header, shows who paused, when and why on every page, and resumes', async () => {
    const v = await visit(open);
    const { id } = await newTimer('page-brake');
    const paused = await post(open, v, '/dashboard/service/pause', {
      note: '<b>INC-8</b> receivers down',
      back: '/dashboard/runs?status=failed',
    });
    expect(paused.status).toBe(303);
    expect(paused.location).toBe('/dashboard/runs?status=failed&done=paused');
    const state = await core.servicePause.get();
    expect(state).toMatchObject({ note: '<b>INC-8</b> receivers down', pausedBy: 'open' });
    expect((await page(open, paused.location!)).text).toContain('data-done="paused"');

    for (const path of await pagesOf(id)) {
      const { text } = await page(open, path);
      expect(text, path).toContain(
        '<section class="brake-on" id="service-pause" data-paused="true" aria-label="Everything is paused">',
      );
      expect(text, path).toContain('<span data-field="note">&lt;b&gt;INC-8&lt;/b&gt; receivers down</span>');
      expect(text, path).not.toContain('<b>INC-8</b>');
      expect(text, path).toContain(`<time datetime="${new Date(state!.pausedAt).toISOString()}"`);
      expect(text, path).toContain('<span class="mono" data-field="paused-by">open</span>');
      expect(text, path).toMatch(
        /action="\/dashboard\/service\/resume"><input type="hidden" name="csrf"[^>]*><input type="hidden" name="back"[^>]*><button type="submit" class="go" data-action="resume-all">Resume<\/button>/,
      );
      expect(text, path).not.toContain('id="brake-note"');
    }

    const resumed = await post(open, v, '/dashboard/service/resume', { back: '/dashboard/audit' });
    expect(resumed.status).toBe(303);
    expect(resumed.location).toBe('/dashboard/audit?done=resumed');
    expect(await core.servicePause.get()).toBeNull();
    const changes = (await call(open, 'GET', '/api/v1/audit?limit=2')).body.items;
    expect(changes.map((e: any) => [e.action, e.app, e.actor])).toEqual([
      ['resume_all', '*', 'open'],
      ['pause_all', '*', 'open'],
    ]);
    const audit = (await page(open, '/dashboard/audit')).text;
    expect(audit).toMatch(
      /<tr data-action="resume_all" data-actor="open">[\s\S]*?<span class="muted">every app<\/span>/,
    );
    expect(audit).toContain('data-paused="false"');
  });

  it('refuses an empty note (the page says why, the form is back), a post without the token, and another site', async () => {
    const v = await visit(open);
    const empty = await post(open, v, '/dashboard/service/pause', { note: '   ', back: '/dashboard/timers' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('note: must not be empty');
    expect(empty.text).toContain('id="brake-note"');
    expect((await post(open, v, '/dashboard/service/pause', {})).status).toBe(400);
    expect(
      (await post(open, { ...v, csrf: (await visit(open)).csrf }, '/dashboard/service/pause', { note: 'x' }))
        .status,
    ).toBe(403);
    expect(
      (await post(open, v, '/dashboard/service/pause', { note: 'x' }, { origin: 'https://evil.example' }))
        .status,
    ).toBe(403);
    expect(await core.servicePause.get()).toBeNull();

    // A way back off the dashboard is not followed.
    const elsewhere = await post(open, v, '/dashboard/service/pause', {
      note: 'drill',
      back: 'https://evil.example/',
    });
    expect(elsewhere.location).toBe('/dashboard/timers?done=paused');
    expect((await post(open, v, '/dashboard/service/resume', { back: '//evil.example/x' })).location).toBe(
      '/dashboard/timers?done=resumed',
    );
  });

  it('pauses and resumes behind basic auth as the admin', async () => {
    const v = await visit(locked, basic(CREDENTIALS.username, CREDENTIALS.password));
    expect((await post(locked, v, '/dashboard/service/pause', { note: 'admin drill' })).status).toBe(303);
    expect(await core.servicePause.get()).toMatchObject({ note: 'admin drill', pausedBy: 'admin' });
    expect((await post(locked, v, '/dashboard/service/resume')).status).toBe(303);
    expect((await call(open, 'GET', '/api/v1/audit?limit=1')).body.items[0]).toMatchObject({
      action: 'resume_all',
      actor: 'admin',
    });
    expect((await page(locked, '/dashboard/service/pause')).status).toBe(401);
  });
});

async function count(table: string): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}
