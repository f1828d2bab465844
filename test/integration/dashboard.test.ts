import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../api/app.js';
import type { Core } from '../../src/core.js';
import { executeJobs } from '../../src/storage/redis/queues.js';
import { call, createTestApp, timerBody } from '../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../helpers/stores.js';

/**
 * The dashboard in the api app (issue 6): bull-board at /dashboard, the timers page at
 * /dashboard/timers, both behind basic auth when DASHBOARD_USER/PASSWORD are set.
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
  '/dashboard',
  '/dashboard/',
  '/dashboard/queue/execute',
  '/dashboard/api/queues',
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
    expect((await page(locked, '/dashboard', basic('root', CREDENTIALS.password))).status).toBe(401);
  });

  it('leaves the API and health checks without auth', async () => {
    expect((await page(locked, '/healthz')).status).toBe(200);
    expect((await page(locked, '/api/v1/timers')).status).toBe(200);
  });

  it('is open when no credentials are configured', async () => {
    expect((await page(open, '/dashboard')).status).toBe(200);
    expect((await page(open, '/dashboard/timers')).status).toBe(200);
  });
});

describe('the board', () => {
  it('serves bull-board at /dashboard and /dashboard/ with its title and link to the timers page', async () => {
    for (const path of ['/dashboard', '/dashboard/']) {
      const res = await page(open, path);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<title>xtimer</title>');
      expect(res.text).toContain('/dashboard/timers');
    }
  });

  it('lists the trigger and execute queues with their descriptions', async () => {
    const res = await call(open, 'GET', '/dashboard/api/queues');
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
    const res = await call(open, 'GET', `/dashboard/api/queues/execute/42_${runAt}`);
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
    const res = await call(open, 'GET', `/dashboard/api/queues/execute/${job!.opts.jobId}`);
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
    const index = await page(open, '/dashboard/');
    const script = /src="([^"]+\.js)"/.exec(index.text)?.[1];
    expect(script).toBeDefined();
    const res = await open.request(new URL(script!, 'http://localhost/dashboard/').pathname);
    expect(res.status).toBe(200);
  });
});

describe('the timers page', () => {
  it('lists timers per app with status, cron, time zone and next fire times', async () => {
    const a = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'page-a', name: 'nightly' }));
    const b = await call(
      open,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'page-b', name: 'hourly', cron: '0 0 * * * *', timezone: 'UTC' }),
    );
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    const res = await page(open, '/dashboard/timers');
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-app="page-a"');
    expect(res.text).toContain('data-app="page-b"');
    expect(res.text).toContain('nightly');
    expect(res.text).toContain('0 30 2 * * *');
    expect(res.text).toContain('Asia/Shanghai');
    expect(res.text).toMatch(/\d{4}-\d{2}-\d{2} 02:30:00 \+08:00/);

    const filtered = await page(open, '/dashboard/timers?app=page-b');
    expect(filtered.text).toContain('hourly');
    expect(filtered.text).not.toContain('data-app="page-a"');
  });

  it('escapes names and outputs a user supplied', async () => {
    const created = await call(
      open,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'page-esc', name: '<script>alert("x")</script>' }),
    );
    expect(created.status).toBe(201);
    for (const path of ['/dashboard/timers?app=page-esc', `/dashboard/timers/${created.body.id}`]) {
      const res = await page(open, path);
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    }
  });

  it("shows a timer's definition, next fire times and an empty run list", async () => {
    const created = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'page-d', name: 'detail' }));
    const res = await page(open, `/dashboard/timers/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('detail');
    expect(res.text).toContain('POST http://127.0.0.1:9/hooks/run');
    expect((res.text.match(/ 02:30:00 \+08:00/g) ?? []).length).toBe(10);
    expect(res.text).toContain('id="no-runs"');
  });

  it('enables and disables a timer from its forms, then sends the browser back', async () => {
    const created = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'page-e', name: 'toggle' }));
    const id = created.body.id;
    const post = (action: string, back: string) =>
      open.request(`/dashboard/timers/${id}/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
        body: new URLSearchParams({ back }).toString(),
      });
    const enabled = await post('enable', '/dashboard/timers?app=page-e');
    expect(enabled.status).toBe(303);
    expect(enabled.headers.get('location')).toBe('/dashboard/timers?app=page-e');
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('active');

    const disabled = await post('disable', 'https://evil.example/');
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get('location')).toBe(`/dashboard/timers/${id}`);
    expect((await call(open, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');
  });

  it('refuses a cross-site form post', async () => {
    const created = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'page-x', name: 'csrf' }));
    const res = await open.request(`/dashboard/timers/${created.body.id}/enable`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: '',
    });
    expect(res.status).toBe(403);
    expect((await call(open, 'GET', `/api/v1/timers/${created.body.id}`)).body.status).toBe('inactive');
  });

  it('answers an unknown timer with a 404 page and a bad filter with a 400 page', async () => {
    const missing = await page(open, '/dashboard/timers/999999999');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/text\/html/);
    expect((await page(open, '/dashboard/timers/abc')).status).toBe(404);
    expect((await page(open, '/dashboard/timers?status=bogus')).status).toBe(400);
    const created = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'page-f', name: 'bad-at' }));
    expect((await page(open, `/dashboard/timers/${created.body.id}?at=yesterday`)).status).toBe(400);
  });
});
