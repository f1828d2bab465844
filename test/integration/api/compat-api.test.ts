import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import {
  createTestCore,
  createTestStores,
  type RecordedRun,
  recordRun,
  type TestStores,
} from '../../helpers/stores.js';

/**
 * The routes of the Go xTimer (docs/migrating-from-go-xtimer.md): its DTOs, its
 * `{code, msg, err}` envelope and error statuses, its cron dialect, over the same data
 * as the native API. test/integration/api/compat-contract.test.ts decodes every answer
 * through the original's structs.
 */

let stores: TestStores;
let app: App;
/** A fixed clock, so the planned runs are known exactly: 2030-01-01T10:17:30Z. */
const FIXED_NOW = Date.UTC(2030, 0, 1, 10, 17, 30);

beforeAll(async () => {
  stores = await createTestStores('compatapi');
  app = createTestApp(createTestCore(stores, () => FIXED_NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

function goBody(overrides: Record<string, unknown> = {}, param: Record<string, unknown> = {}) {
  return {
    app: 'legacy',
    name: `g-${Math.random().toString(36).slice(2, 10)}`,
    cron: '*/5 * * * *',
    notifyHTTPParam: {
      method: 'POST',
      url: 'http://127.0.0.1:9/notify',
      header: { 'Content-Type': 'application/json' },
      body: '{"k":1}',
      ...param,
    },
    ...overrides,
  };
}

async function createGo(overrides: Record<string, unknown> = {}, param: Record<string, unknown> = {}) {
  const res = await call(app, 'POST', '/api/timer/v1/def', goBody(overrides, param));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ code: 0, id: expect.any(Number) });
  return res.body.id as number;
}

const native = async (id: number) => (await call(app, 'GET', `/api/v1/timers/${id}`)).body;
const goTimer = async (id: number) => (await call(app, 'GET', `/api/timer/v1/def?id=${id}`)).body.data;
const pendingRuns = async (id: number) =>
  (await call(app, 'GET', `/api/v1/timers/${id}/tasks?upcoming=true`)).body.items.map((t: any) => t.runAt);

/** The original's error answer: `code: -1`, the message after our native code, at `status` (400 or 200). */
function expectCompatError(res: { status: number; body: any }, status: number, nativeCode: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ code: -1, msg: expect.stringMatching(`^${nativeCode}: .`), err: null });
}

async function timerRows(): Promise<number> {
  const [rows] = await stores.database.pool.query('SELECT COUNT(*) AS n FROM timers');
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

describe('POST /api/timer/v1/def', () => {
  it('creates a timer answering {code: 0, msg, err: null, id}, readable through the native API', async () => {
    const res = await call(app, 'POST', '/api/timer/v1/def', goBody({ name: 'from-go' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, msg: '', err: null, id: expect.any(Number) });
    expect(await native(res.body.id)).toMatchObject({
      id: res.body.id,
      app: 'legacy',
      name: 'from-go',
      cron: '*/5 * * * *',
      timezone: 'UTC',
      status: 'inactive',
      callback: {
        url: 'http://127.0.0.1:9/notify',
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"k":1}',
        timeoutMs: stores.config.callbackTimeoutMs,
      },
    });
  });

  it('reads a 6-field cron as cronexpr does: minute … day-of-week and a year', async () => {
    const id = await createGo({ cron: '30 2 * * * 2031' });
    expect((await goTimer(id)).cron).toBe('30 2 * * * 2031');
    expect((await native(id)).cron).toBe('0 30 2 * * * 2031');
    const preview = await call(app, 'GET', `/api/v1/timers/${id}/preview?count=2`);
    expect(preview.body.items).toEqual(['2031-01-01T02:30:00.000+00:00', '2031-01-02T02:30:00.000+00:00']);

    // Any year: daily at 02:30, not minute 2, second 30 of every hour.
    const daily = await createGo({ cron: '30 2 * * * *' });
    expect((await goTimer(daily)).cron).toBe('30 2 * * * *');
    expect((await native(daily)).cron).toBe('30 2 * * *');
  });

  it('takes a 7-field cron (seconds first, trailing year), and the native API reads it the same way', async () => {
    const cron = '0 0 12 * * ? 2031';
    const id = await createGo({ cron });
    expect((await native(id)).cron).toBe(cron);
    const preview = await call(app, 'GET', `/api/v1/timers/${id}/preview?count=2`);
    expect(preview.body.items).toEqual(['2031-01-01T12:00:00.000+00:00', '2031-01-02T12:00:00.000+00:00']);

    // The cron a native GET shows can be sent back as it reads: a PATCH with it changes nothing.
    const patched = await call(app, 'PATCH', `/api/v1/timers/${id}`, { cron: (await native(id)).cron });
    expect(patched.status).toBe(200);
    expect((await goTimer(id)).cron).toBe(cron);
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ cron, name: 'native-seven-fields', timezone: 'UTC' }),
    );
    expect(created.status).toBe(201);
    const nativePreview = await call(app, 'GET', `/api/v1/timers/${created.body.id}/preview?count=1`);
    expect(nativePreview.body.items).toEqual(['2031-01-01T12:00:00.000+00:00']);
  });

  it('takes cronexpr’s macros, shown as written', async () => {
    const id = await createGo({ cron: '@weekly' });
    expect((await goTimer(id)).cron).toBe('@weekly');
    expect((await native(id)).cron).toBe('0 0 * * 0');
  });

  it('takes a header list (joined with ", ") and a lowercase method', async () => {
    const id = await createGo({}, { method: 'get', header: { 'X-Trace': ['a', 'b'] }, body: '' });
    expect((await native(id)).callback).toMatchObject({ method: 'GET', headers: { 'X-Trace': 'a, b' } });
    expect((await goTimer(id)).notifyHTTPParam).toEqual({
      method: 'GET',
      url: 'http://127.0.0.1:9/notify',
      header: { 'X-Trace': 'a, b' },
    });
  });

  it('creates an inactive timer for status 0, the zero value Go clients send', async () => {
    const id = await createGo({ status: 0 });
    expect((await native(id)).status).toBe('inactive');
    expect((await goTimer(id)).status).toBe(1);
  });

  it('creates an active timer with status 2 and plans its runs', async () => {
    const id = await createGo({ status: 2, cron: '0 * * * *' });
    expect((await native(id)).status).toBe('active');
    // Hourly from 10:17:30 to the end of the next window (12:00): only 11:00.
    expect(await pendingRuns(id)).toEqual(['2030-01-01T11:00:00.000Z']);
  });

  it.each([
    ['a missing notifyHTTPParam', { app: 'legacy', name: 'x', cron: '* * * * *' }, 'VALIDATION_FAILED'],
    ['a missing url', goBody({}, { url: undefined }), 'VALIDATION_FAILED'],
    ['an empty name', goBody({ name: '' }), 'INVALID_NAME'],
    ['a numeric app', goBody({ app: 5 }), 'INVALID_APP'],
    ['an unknown status', goBody({ status: 3 }), 'VALIDATION_FAILED'],
    ['malformed JSON', '{"app": ', 'INVALID_JSON'],
  ])(
    'answers a request that does not bind (%s) with 400 and code -1, storing nothing',
    async (_what, body, code) => {
      const before = await timerRows();
      expectCompatError(await call(app, 'POST', '/api/timer/v1/def', body), 400, code);
      expect(await timerRows()).toBe(before);
    },
  );

  it.each([
    ['a cron field out of range', goBody({ cron: '0 61 * * * ?' }), 'INVALID_CRON'],
    ['a year cronexpr does not know', goBody({ cron: '0 0 12 * * ? 2100' }), 'INVALID_CRON'],
    ['@reboot', goBody({ cron: '@reboot' }), 'INVALID_CRON'],
    ['W, which xtimer does not run', goBody({ cron: '0 12 15W * *' }), 'INVALID_CRON'],
    ['a non-http URL', goBody({}, { url: 'ftp://x/y' }), 'INVALID_URL'],
    ['user:password@ in the URL', goBody({}, { url: 'https://user:pw@hooks.example.com/x' }), 'INVALID_URL'],
    [
      'headers over 8 KiB in total',
      goBody({}, { header: { 'X-Big': ['a'.repeat(5000), 'b'.repeat(5000)] } }),
      'INVALID_HEADERS',
    ],
    ['an unknown method', goBody({}, { method: 'TRACE' }), 'INVALID_METHOD'],
    ['a bad app', goBody({ app: 'no spaces' }), 'INVALID_APP'],
  ])(
    'answers what the service refuses (%s) with HTTP 200 and code -1, storing nothing',
    async (_what, body, code) => {
      const before = await timerRows();
      expectCompatError(await call(app, 'POST', '/api/timer/v1/def', body), 200, code);
      expect(await timerRows()).toBe(before);
    },
  );

  it('refuses a duplicate (app, name) with HTTP 200 and code -1', async () => {
    await createGo({ name: 'twice' });
    expectCompatError(
      await call(app, 'POST', '/api/timer/v1/def', goBody({ name: 'twice' })),
      200,
      'TIMER_NAME_TAKEN',
    );
  });

  it('answers a body over 1 MiB with 413 and code -1, storing nothing', async () => {
    const before = await timerRows();
    const res = await call(app, 'POST', '/api/timer/v1/def', goBody({}, { body: 'x'.repeat(1024 * 1024) }));
    expectCompatError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(await timerRows()).toBe(before);
  });

  it('answers an unknown route with 404 and code -1', async () => {
    expectCompatError(await call(app, 'PUT', '/api/timer/v1/def', goBody()), 404, 'NOT_FOUND');
  });
});

describe('GET /api/timer/v1/def', () => {
  it('returns a timer created natively in the Go DTO, its cron in a form cronexpr reads the same way', async () => {
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({
        app: 'legacy',
        name: 'from-native',
        cron: '0 15 * * * *',
        callback: { url: 'https://n.example.test/x', method: 'PUT', headers: { 'x-a': '1' }, body: 'b' },
      }),
    );
    expect(created.status).toBe(201);
    const res = await call(app, 'GET', `/api/timer/v1/def?app=legacy&id=${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 0,
      msg: '',
      err: null,
      data: {
        id: created.body.id,
        app: 'legacy',
        name: 'from-native',
        status: 1,
        // Six native fields are seconds first; cronexpr needs the seventh (year) to read them so.
        cron: '0 15 * * * * *',
        notifyHTTPParam: {
          method: 'PUT',
          url: 'https://n.example.test/x',
          header: { 'x-a': '1' },
          body: 'b',
        },
      },
    });
  });

  it('leaves out an empty header map and body, as the original’s omitempty does', async () => {
    const id = await createGo({}, { header: {}, body: '' });
    expect((await goTimer(id)).notifyHTTPParam).toEqual({ method: 'POST', url: 'http://127.0.0.1:9/notify' });
  });

  it('answers code -1 for an unknown id or another app’s, and 400 for a missing or bad id', async () => {
    const id = await createGo();
    expectCompatError(await call(app, 'GET', '/api/timer/v1/def?id=99999999'), 200, 'TIMER_NOT_FOUND');
    expectCompatError(await call(app, 'GET', `/api/timer/v1/def?app=other&id=${id}`), 200, 'TIMER_NOT_FOUND');
    expectCompatError(await call(app, 'GET', '/api/timer/v1/def'), 400, 'VALIDATION_FAILED');
    expectCompatError(await call(app, 'GET', '/api/timer/v1/def?id=abc'), 400, 'VALIDATION_FAILED');
  });
});

describe('PATCH /api/timer/v1/def', () => {
  it('updates name, cron and callback from the Go DTO, and re-plans an active timer’s runs', async () => {
    const id = await createGo({ status: 2, cron: '0 * * * *' });
    expect(await pendingRuns(id)).toEqual(['2030-01-01T11:00:00.000Z']);

    const res = await call(app, 'PATCH', '/api/timer/v1/def', {
      id,
      app: 'legacy',
      name: 'renamed',
      status: 0,
      cron: '30 * * * * *',
      notifyHTTPParam: { method: 'PUT', url: 'https://moved.example.test/hook', header: { 'x-v': '2' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, msg: '', err: null });

    expect(await goTimer(id)).toEqual({
      id,
      app: 'legacy',
      name: 'renamed',
      status: 2,
      cron: '30 * * * * *',
      notifyHTTPParam: { method: 'PUT', url: 'https://moved.example.test/hook', header: { 'x-v': '2' } },
    });
    expect(await native(id)).toMatchObject({
      cron: '30 * * * *',
      status: 'active',
      callback: {
        url: 'https://moved.example.test/hook',
        method: 'PUT',
        headers: { 'x-v': '2' },
        body: null,
      },
    });
    expect(await pendingRuns(id)).toEqual(['2030-01-01T10:30:00.000Z', '2030-01-01T11:30:00.000Z']);
  });

  it('enables with status 2 and disables with status 1; 0 and no status leave it', async () => {
    const id = await createGo({ cron: '0 * * * *' });
    await call(app, 'PATCH', '/api/timer/v1/def', { id, status: 2 });
    expect((await native(id)).status).toBe('active');
    expect(await pendingRuns(id)).toEqual(['2030-01-01T11:00:00.000Z']);
    await call(app, 'PATCH', '/api/timer/v1/def', { id, status: 0, name: 'still-on' });
    expect((await native(id)).status).toBe('active');
    await call(app, 'PATCH', '/api/timer/v1/def', { id, status: 1 });
    expect((await native(id)).status).toBe('inactive');
    expect(await pendingRuns(id)).toEqual([]);
  });

  it('changes nothing when the change is refused', async () => {
    await createGo({ name: 'taken' });
    const id = await createGo({ name: 'mine' });
    const before = await native(id);
    expectCompatError(
      await call(app, 'PATCH', '/api/timer/v1/def', { id, name: 'taken', status: 2 }),
      200,
      'TIMER_NAME_TAKEN',
    );
    expectCompatError(
      await call(app, 'PATCH', '/api/timer/v1/def', { id, cron: '0 0 12 * * ? 2100' }),
      200,
      'INVALID_CRON',
    );
    expectCompatError(
      await call(app, 'PATCH', '/api/timer/v1/def', { id, app: 'other', status: 2 }),
      200,
      'TIMER_NOT_FOUND',
    );
    expectCompatError(
      await call(app, 'PATCH', '/api/timer/v1/def', { id: 99999999, status: 2 }),
      200,
      'TIMER_NOT_FOUND',
    );
    expectCompatError(await call(app, 'PATCH', '/api/timer/v1/def', { name: 'x' }), 400, 'VALIDATION_FAILED');
    expectCompatError(
      await call(app, 'PATCH', '/api/timer/v1/def', { id, status: 'on' }),
      400,
      'VALIDATION_FAILED',
    );
    expect(await native(id)).toEqual(before);
  });

  it('shows the native form to Go clients once the cron is changed natively', async () => {
    const id = await createGo({ cron: '30 2 * * * 2031' });
    await call(app, 'PATCH', `/api/v1/timers/${id}`, { cron: '0 0 3 * * *' });
    expect((await goTimer(id)).cron).toBe('0 0 3 * * * *');
    await call(app, 'PATCH', `/api/v1/timers/${id}`, { name: 'renamed-natively' });
    expect((await goTimer(id)).cron).toBe('0 0 3 * * * *');
  });
});

describe('GET /api/timer/v1/defs and /defsByName', () => {
  it('pages an app’s timers, newest first, with pageIndex and pageSize and the total', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createGo({ app: 'paged-go', name: `p${i}` }));
    const newest = [...ids].reverse();

    const first = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=1&pageSize=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 0, total: 5 });
    expect(first.body.data.map((t: any) => t.id)).toEqual(newest.slice(0, 2));
    const third = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=3&pageSize=2');
    expect(third.body.data.map((t: any) => t.id)).toEqual(newest.slice(4));
    const beyond = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=4&pageSize=2');
    expect(beyond.body).toMatchObject({ code: 0, data: [], total: 5 });
    // Defaults, and 0 (Go's zero value) for either: page 1 of 10.
    for (const q of ['', '&pageIndex=0&pageSize=0']) {
      const res = await call(app, 'GET', `/api/timer/v1/defs?app=paged-go${q}`);
      expect(res.body.data.map((t: any) => t.id)).toEqual(newest);
    }
  });

  it('requires the app', async () => {
    const res = await call(app, 'GET', '/api/timer/v1/defs');
    expectCompatError(res, 400, 'INVALID_APP');
    expect(res.body.msg).toBe('INVALID_APP: app: is required');
  });

  it('finds timers whose name holds fuzzyName, case-insensitively, paged, counting every match', async () => {
    const names = [
      'nightly-report',
      'Nightly-cleanup',
      'hourly-sync',
      'nightly_backup',
      'nightlyXbackup',
      '50%-off',
    ];
    const ids = new Map<string, number>();
    for (const name of names) ids.set(name, await createGo({ app: 'fuzzy-go', name }));
    const search = async (query: string) => {
      const res = await call(app, 'GET', `/api/timer/v1/defsByName?app=fuzzy-go&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { names: res.body.data.map((t: any) => t.name), total: res.body.total };
    };

    expect(await search('fuzzyName=nightly')).toEqual({
      names: ['nightlyXbackup', 'nightly_backup', 'Nightly-cleanup', 'nightly-report'],
      total: 4,
    });
    expect(await search('fuzzyName=NIGHTLY&pageIndex=2&pageSize=3')).toEqual({
      names: ['nightly-report'],
      total: 4,
    });
    // LIKE's wildcards in fuzzyName match themselves only.
    expect(await search(`fuzzyName=${encodeURIComponent('_')}`)).toEqual({
      names: ['nightly_backup'],
      total: 1,
    });
    expect(await search(`fuzzyName=${encodeURIComponent('%')}`)).toEqual({ names: ['50%-off'], total: 1 });
    expect(await search('fuzzyName=weekly')).toEqual({ names: [], total: 0 });
    // The exact name, as this API also takes it.
    expect(await search('name=nightly-report')).toEqual({ names: ['nightly-report'], total: 1 });
    expect(await search('name=nightly')).toEqual({ names: [], total: 0 });

    expectCompatError(
      await call(app, 'GET', '/api/timer/v1/defsByName?app=fuzzy-go'),
      400,
      'VALIDATION_FAILED',
    );
    expectCompatError(await call(app, 'GET', '/api/timer/v1/defsByName?fuzzyName=x'), 400, 'INVALID_APP');
  });
});

describe('POST /api/timer/v1/enable and /unable', () => {
  it('activates and deactivates, seen by both APIs, and plans and cancels runs', async () => {
    const id = await createGo({ cron: '*/30 * * * *' });
    const on = await call(app, 'POST', '/api/timer/v1/enable', { app: 'legacy', id });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ code: 0, msg: '', err: null });
    expect((await native(id)).status).toBe('active');
    expect((await goTimer(id)).status).toBe(2);
    // Every 30 minutes is sparse: planned to the end of the next window, 10:30 … 11:30.
    expect(await pendingRuns(id)).toHaveLength(3);

    const off = await call(app, 'POST', '/api/timer/v1/unable', { app: 'legacy', id });
    expect(off.body).toEqual({ code: 0, msg: '', err: null });
    expect((await native(id)).status).toBe('inactive');
    expect(await pendingRuns(id)).toEqual([]);
  });

  it('acts on a timer the native API created, and the native API sees it', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'legacy' }));
    await call(app, 'POST', '/api/timer/v1/enable', { id: created.body.id });
    expect((await native(created.body.id)).status).toBe('active');
    await call(app, 'POST', `/api/v1/timers/${created.body.id}/disable`);
    expect((await goTimer(created.body.id)).status).toBe(1);
  });

  it('answers code -1 for an unknown id or another app’s, 400 for a body without an id', async () => {
    const id = await createGo();
    for (const path of ['/api/timer/v1/enable', '/api/timer/v1/unable']) {
      expectCompatError(await call(app, 'POST', path, { id: 99999999 }), 200, 'TIMER_NOT_FOUND');
      expectCompatError(await call(app, 'POST', path, { app: 'other', id }), 200, 'TIMER_NOT_FOUND');
      expectCompatError(await call(app, 'POST', path, {}), 400, 'VALIDATION_FAILED');
      expectCompatError(await call(app, 'POST', path, 'not json'), 400, 'INVALID_JSON');
    }
    expect((await native(id)).status).toBe('inactive');
  });
});

describe('DELETE /api/timer/v1/def', () => {
  it('deletes by a JSON body {app, id}, as Go clients send it', async () => {
    const id = await createGo();
    expectCompatError(
      await call(app, 'DELETE', '/api/timer/v1/def', { app: 'other', id }),
      200,
      'TIMER_NOT_FOUND',
    );
    const res = await call(app, 'DELETE', '/api/timer/v1/def', { app: 'legacy', id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, msg: '', err: null });
    expect((await call(app, 'GET', `/api/v1/timers/${id}`)).status).toBe(404);
  });

  it('deletes by a query id, including a timer the native API created', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'legacy' }));
    const res = await call(app, 'DELETE', `/api/timer/v1/def?id=${created.body.id}`);
    expect(res.body).toMatchObject({ code: 0 });
    expect((await call(app, 'GET', `/api/v1/timers/${created.body.id}`)).status).toBe(404);
    expectCompatError(
      await call(app, 'DELETE', `/api/timer/v1/def?id=${created.body.id}`),
      200,
      'TIMER_NOT_FOUND',
    );
  });

  it('leaves a timer deleted natively unknown to the compatible API', async () => {
    const id = await createGo();
    expect((await call(app, 'DELETE', `/api/v1/timers/${id}`)).status).toBe(204);
    expectCompatError(await call(app, 'GET', `/api/timer/v1/def?id=${id}`), 200, 'TIMER_NOT_FOUND');
  });
});

describe('GET /api/task/v1/records', () => {
  it('pages the runs that have happened, newest first, in the Go task DTO with its status values', async () => {
    const id = await createGo();
    const t = (minute: number) => Date.UTC(2030, 0, 1, 10, minute);
    const runs: Array<Omit<RecordedRun, 'timerId' | 'app'>> = [
      { runAt: t(0), status: 'succeeded', output: '{"ok":true}', durationMs: 12 },
      { runAt: t(5), status: 'failed', output: 'boom', durationMs: 30 },
      { runAt: t(10), status: 'failed', error: 'timeout after 5000 ms', durationMs: 5000 },
      { runAt: t(15), status: 'skipped' },
      { runAt: t(16), status: 'missed' },
      { runAt: t(17), status: 'running' },
      { runAt: t(20), status: 'pending' },
    ];
    for (const run of runs) await recordRun(stores.database, { timerId: id, app: 'legacy', ...run });

    const all = await call(app, 'GET', `/api/task/v1/records?timerID=${id}&pageSize=100`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ code: 0, msg: '', err: null, total: 6 });
    const row = (minute: number, status: number, output: string, costTime: number) => ({
      id: expect.any(Number),
      app: 'legacy',
      timerID: id,
      output,
      runTimer: new Date(t(minute)).toISOString(),
      costTime,
      status,
    });
    expect(all.body.data).toEqual([
      row(17, 1, '', 0),
      row(16, 5, '', 0),
      row(15, 4, '', 0),
      row(10, 3, 'timeout after 5000 ms', 5000),
      row(5, 3, 'boom', 30),
      row(0, 2, '{"ok":true}', 12),
    ]);

    const page2 = await call(app, 'GET', `/api/task/v1/records?timerID=${id}&pageIndex=2&pageSize=4`);
    expect(page2.body.total).toBe(6);
    expect(page2.body.data).toEqual(all.body.data.slice(4));
  });

  it('answers an empty list for a timer with no runs, code -1 for an unknown timer, 400 without one', async () => {
    const id = await createGo({ status: 2, cron: '*/30 * * * *' });
    // Its planned runs have not run: not records yet.
    expect(await pendingRuns(id)).toHaveLength(3);
    const res = await call(app, 'GET', `/api/task/v1/records?timerID=${id}`);
    expect(res.body).toEqual({ code: 0, msg: '', err: null, total: 0, data: [] });
    expectCompatError(
      await call(app, 'GET', '/api/task/v1/records?timerID=99999999'),
      200,
      'TIMER_NOT_FOUND',
    );
    expectCompatError(await call(app, 'GET', '/api/task/v1/records'), 400, 'VALIDATION_FAILED');
  });
});
