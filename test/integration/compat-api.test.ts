import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../api/app.js';
import { call, createTestApp, timerBody } from '../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../helpers/stores.js';

/**
 * The xtimer-compatible routes (SPEC §7): the Go original's DTOs and `{code, msg, ...}`
 * envelope over the same data as the native API.
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
    creator: 'ops',
    cron: '0 */5 * * * ?',
    notifyHTTPParam: {
      method: 'POST',
      url: 'http://127.0.0.1:9/notify',
      header: { 'Content-Type': ['application/json'], 'X-Trace': ['a', 'b'] },
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

function expectCompatError(res: { status: number; body: any }, status: number, nativeCode?: string): void {
  expect(res.status).toBe(status);
  expect(res.body.code).not.toBe(0);
  expect(typeof res.body.code).toBe('number');
  expect(typeof res.body.msg).toBe('string');
  expect(res.body.msg.length).toBeGreaterThan(0);
  if (nativeCode) expect(res.body.msg).toContain(nativeCode);
}

async function timerRows(): Promise<number> {
  const [rows] = await stores.database.pool.query('SELECT COUNT(*) AS n FROM timers');
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

describe('POST /api/timer/v1/def', () => {
  it('creates a timer answering {code: 0, msg, id}, readable through the native API', async () => {
    const res = await call(app, 'POST', '/api/timer/v1/def', goBody({ name: 'from-go' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, msg: expect.any(String), id: expect.any(Number) });

    const native = await call(app, 'GET', `/api/v1/timers/${res.body.id}`);
    expect(native.status).toBe(200);
    expect(native.body).toMatchObject({
      id: res.body.id,
      app: 'legacy',
      name: 'from-go',
      cron: '0 */5 * * * ?',
      timezone: 'UTC',
      status: 'inactive',
      callback: {
        url: 'http://127.0.0.1:9/notify',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Trace': 'a, b' },
        body: '{"k":1}',
        timeoutMs: stores.config.callbackTimeoutMs,
      },
    });
  });

  it('accepts a 7-field cron (seconds first, trailing year) that the native API rejects', async () => {
    const cron = '0 0 12 * * ? 2031';
    const id = await createGo({ cron });
    const native = await call(app, 'GET', `/api/v1/timers/${id}`);
    expect(native.body.cron).toBe(cron);
    const preview = await call(app, 'GET', `/api/v1/timers/${id}/preview?count=2`);
    expect(preview.body.items).toEqual(['2031-01-01T12:00:00.000+00:00', '2031-01-02T12:00:00.000+00:00']);

    const rejected = await call(app, 'POST', '/api/v1/timers', timerBody({ cron }));
    expect(rejected.status).toBe(400);
    expect(rejected.body.error.code).toBe('INVALID_CRON');
  });

  it('accepts a lowercase method and header values given as plain strings', async () => {
    const id = await createGo({}, { method: 'get', header: { accept: 'text/plain' }, body: '' });
    const native = await call(app, 'GET', `/api/v1/timers/${id}`);
    expect(native.body.callback).toMatchObject({ method: 'GET', headers: { accept: 'text/plain' } });
  });

  it('creates an inactive timer for status 0, the zero value Go clients send', async () => {
    const id = await createGo({ status: 0 });
    expect((await call(app, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');
    expect((await call(app, 'GET', `/api/timer/v1/def?id=${id}`)).body.data.status).toBe(1);
  });

  it('creates an active timer with status 2 and plans its runs', async () => {
    const id = await createGo({ status: 2, cron: '0 0 * * * ?' });
    const native = await call(app, 'GET', `/api/v1/timers/${id}`);
    expect(native.body.status).toBe('active');
    const tasks = await call(app, 'GET', `/api/v1/timers/${id}/tasks`);
    // Hourly from 10:17:30 to the end of the next window (12:00): only 11:00.
    expect(tasks.body.items.map((t: any) => t.runAt)).toEqual(['2030-01-01T11:00:00.000Z']);
  });

  it.each([
    ['a cron field out of range', goBody({ cron: '0 61 * * * ?' }), 'INVALID_CRON'],
    ['a bad year field', goBody({ cron: '0 0 12 * * ? 1900' }), 'INVALID_CRON'],
    ['a non-http URL', goBody({}, { url: 'ftp://x/y' }), 'INVALID_URL'],
    ['an unknown method', goBody({}, { method: 'TRACE' }), 'INVALID_METHOD'],
    ['a bad app', goBody({ app: 'no spaces' }), 'INVALID_APP'],
    ['an empty name', goBody({ name: '' }), 'INVALID_NAME'],
    ['a missing notifyHTTPParam', { app: 'legacy', name: 'x', cron: '* * * * *' }, undefined],
    ['malformed JSON', '{"app": ', 'INVALID_JSON'],
    ['an unknown status', goBody({ status: 3 }), undefined],
  ])('rejects %s with a non-zero code and a message, storing nothing', async (_what, body, code) => {
    const before = await timerRows();
    const res = await call(app, 'POST', '/api/timer/v1/def', body);
    expectCompatError(res, 400, code);
    expect(await timerRows()).toBe(before);
  });

  it('answers a body over 1 MiB with 413 in its own envelope, storing nothing', async () => {
    const before = await timerRows();
    const res = await call(app, 'POST', '/api/timer/v1/def', goBody({}, { body: 'x'.repeat(1024 * 1024) }));
    expectCompatError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.error).toBeUndefined();
    expect(await timerRows()).toBe(before);
  });

  it('answers an unknown compatible route in its own envelope', async () => {
    const res = await call(app, 'PUT', '/api/timer/v1/def', goBody());
    expectCompatError(res, 404, 'NOT_FOUND');
  });

  it('rejects a duplicate (app, name) with a non-zero code', async () => {
    await createGo({ name: 'twice' });
    const res = await call(app, 'POST', '/api/timer/v1/def', goBody({ name: 'twice' }));
    expectCompatError(res, 409, 'TIMER_NAME_TAKEN');
  });
});

describe('GET /api/timer/v1/def', () => {
  it('returns the timer in the Go DTO, including one created through the native API', async () => {
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
    const res = await call(app, 'GET', `/api/timer/v1/def?id=${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 0,
      msg: expect.any(String),
      data: {
        id: created.body.id,
        app: 'legacy',
        name: 'from-native',
        creator: expect.any(String),
        status: 1,
        cron: '0 15 * * * *',
        notifyHTTPParam: {
          method: 'PUT',
          url: 'https://n.example.test/x',
          header: { 'x-a': ['1'] },
          body: 'b',
        },
      },
    });
  });

  it('answers a non-zero code for an unknown id and for a missing or bad id', async () => {
    expectCompatError(await call(app, 'GET', '/api/timer/v1/def?id=99999999'), 404, 'TIMER_NOT_FOUND');
    expectCompatError(await call(app, 'GET', '/api/timer/v1/def'), 400);
    expectCompatError(await call(app, 'GET', '/api/timer/v1/def?id=abc'), 400);
  });
});

describe('GET /api/timer/v1/defs and /defsByName', () => {
  it('pages an app’s timers with pageIndex and pageSize and reports the total', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createGo({ app: 'paged-go', name: `p${i}` }));

    const first = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=1&pageSize=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 0, total: 5 });
    expect(first.body.data.map((t: any) => t.id)).toEqual(ids.slice(0, 2));
    const third = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=3&pageSize=2');
    expect(third.body.data.map((t: any) => t.id)).toEqual(ids.slice(4));
    const beyond = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=4&pageSize=2');
    expect(beyond.body).toMatchObject({ code: 0, data: [], total: 5 });
    // Defaults: page 1 of 10.
    const defaults = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go');
    expect(defaults.body.data.map((t: any) => t.id)).toEqual(ids);
  });

  it('treats pageIndex and pageSize 0 as the defaults, as the Go original does', async () => {
    const res = await call(app, 'GET', '/api/timer/v1/defs?app=paged-go&pageIndex=0&pageSize=0');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, total: 5 });
    expect(res.body.data).toHaveLength(5);
  });

  it('requires the app', async () => {
    expectCompatError(await call(app, 'GET', '/api/timer/v1/defs'), 400);
  });

  it('finds a timer by app and name', async () => {
    const id = await createGo({ app: 'named-go', name: 'needle' });
    const hit = await call(app, 'GET', '/api/timer/v1/defsByName?app=named-go&name=needle');
    expect(hit.status).toBe(200);
    expect(hit.body).toMatchObject({ code: 0, total: 1 });
    expect(hit.body.data).toHaveLength(1);
    expect(hit.body.data[0]).toMatchObject({ id, app: 'named-go', name: 'needle' });
    const miss = await call(app, 'GET', '/api/timer/v1/defsByName?app=named-go&name=haystack');
    expect(miss.body).toMatchObject({ code: 0, data: [], total: 0 });
    expectCompatError(await call(app, 'GET', '/api/timer/v1/defsByName?app=named-go'), 400);
  });
});

describe('POST /api/timer/v1/enable and /unable', () => {
  it('activates and deactivates, seen by both APIs, and plans and cancels runs', async () => {
    const id = await createGo({ cron: '0 */15 * * * ?' });
    const on = await call(app, 'POST', '/api/timer/v1/enable', { id });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ code: 0 });
    expect((await call(app, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('active');
    expect((await call(app, 'GET', `/api/timer/v1/def?id=${id}`)).body.data.status).toBe(2);
    const pending = await call(app, 'GET', `/api/v1/timers/${id}/tasks?status=pending`);
    expect(pending.body.items).toHaveLength(6);

    const off = await call(app, 'POST', '/api/timer/v1/unable', { id });
    expect(off.body).toMatchObject({ code: 0 });
    expect((await call(app, 'GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');
    expect((await call(app, 'GET', `/api/v1/timers/${id}/tasks?status=pending`)).body.items).toEqual([]);
  });

  it('acts on a timer the native API created, and the native API sees it', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'legacy' }));
    await call(app, 'POST', '/api/timer/v1/enable', { id: created.body.id });
    expect((await call(app, 'GET', `/api/v1/timers/${created.body.id}`)).body.status).toBe('active');
    await call(app, 'POST', `/api/v1/timers/${created.body.id}/disable`);
    expect((await call(app, 'GET', `/api/timer/v1/def?id=${created.body.id}`)).body.data.status).toBe(1);
  });

  it('answers a non-zero code for an unknown id and a body without an id', async () => {
    expectCompatError(
      await call(app, 'POST', '/api/timer/v1/enable', { id: 99999999 }),
      404,
      'TIMER_NOT_FOUND',
    );
    expectCompatError(
      await call(app, 'POST', '/api/timer/v1/unable', { id: 99999999 }),
      404,
      'TIMER_NOT_FOUND',
    );
    expectCompatError(await call(app, 'POST', '/api/timer/v1/enable', {}), 400);
    expectCompatError(await call(app, 'POST', '/api/timer/v1/enable', 'not json'), 400, 'INVALID_JSON');
  });
});

describe('DELETE /api/timer/v1/def', () => {
  it('deletes by a JSON body {id}, as Go clients send it', async () => {
    const id = await createGo();
    const res = await call(app, 'DELETE', '/api/timer/v1/def', { id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0 });
    expect((await call(app, 'GET', `/api/v1/timers/${id}`)).status).toBe(404);
  });

  it('deletes by a query id, including a timer the native API created', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'legacy' }));
    const res = await call(app, 'DELETE', `/api/timer/v1/def?id=${created.body.id}`);
    expect(res.body).toMatchObject({ code: 0 });
    expect((await call(app, 'GET', `/api/v1/timers/${created.body.id}`)).status).toBe(404);
    expectCompatError(
      await call(app, 'DELETE', `/api/timer/v1/def?id=${created.body.id}`),
      404,
      'TIMER_NOT_FOUND',
    );
  });

  it('leaves a timer deleted natively unknown to the compatible API', async () => {
    const id = await createGo();
    expect((await call(app, 'DELETE', `/api/v1/timers/${id}`)).status).toBe(204);
    expectCompatError(await call(app, 'GET', `/api/timer/v1/def?id=${id}`), 404, 'TIMER_NOT_FOUND');
  });
});

describe('GET /api/task/v1/records', () => {
  it('pages a timer’s runs in the Go task DTO with a total', async () => {
    const id = await createGo({ status: 2, cron: '0 */10 * * * ?' });
    // 10:20 … 11:50: ten runs up to the end of the next window.
    const all = await call(app, 'GET', `/api/task/v1/records?timerID=${id}&pageSize=100`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ code: 0, total: 10 });
    expect(all.body.data).toHaveLength(10);
    expect(all.body.data[0]).toEqual({
      id: expect.any(Number),
      app: 'legacy',
      timerID: id,
      output: '',
      runTimer: '2030-01-01T11:50:00.000Z',
      costTime: 0,
      status: 0,
    });
    const page2 = await call(app, 'GET', `/api/task/v1/records?timerID=${id}&pageIndex=2&pageSize=4`);
    expect(page2.body.total).toBe(10);
    expect(page2.body.data.map((t: any) => t.runTimer)).toEqual(
      all.body.data.slice(4, 8).map((t: any) => t.runTimer),
    );
  });

  it('answers an empty list for a timer with no runs, and a non-zero code for an unknown or missing timer', async () => {
    const id = await createGo();
    const res = await call(app, 'GET', `/api/task/v1/records?timerID=${id}`);
    expect(res.body).toMatchObject({ code: 0, data: [], total: 0 });
    expectCompatError(
      await call(app, 'GET', '/api/task/v1/records?timerID=99999999'),
      404,
      'TIMER_NOT_FOUND',
    );
    expectCompatError(await call(app, 'GET', '/api/task/v1/records'), 400);
  });
});
