import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Open mode (no admin token) is safe against the browser. A web page cannot
 * drive the API (state-changing requests must be JSON and are refused when Origin or
 * Sec-Fetch-Site says cross-site), nor reach it through a rebound DNS name (Host must be
 * loopback or PUBLIC_HOSTS); tools without an Origin keep working. Every page carries
 * anti-framing, nosniff and referrer headers; a CR/LF in a query parameter is a 400.
 */

const TOKEN = 'admin-token-for-the-browser-tests-0123';

let stores: TestStores;
let core: Core;
let open: App;
let secured: App;
let securedStores: TestStores;
let securedCore: Core;

beforeAll(async () => {
  stores = await createTestStores('browser', { PUBLIC_HOSTS: 'xtimer.example.com' });
  core = createTestCore(stores);
  open = createTestApp(core);
  securedStores = await createTestStores('browsertok', {
    XTIMER_ADMIN_TOKEN: TOKEN,
    XTIMER_SECRET_KEY: 'secret-key-for-the-browser-tests-0123',
  });
  securedCore = createTestCore(securedStores);
  secured = createTestApp(securedCore);
});
afterAll(async () => {
  await Promise.all([core.queues.close(), securedCore.queues.close()]);
  await Promise.all([stores.cleanup(), securedStores.cleanup()]);
});

async function timerRows(): Promise<Array<{ id: number; status: string; version: number }>> {
  const [rows] = await stores.database.pool.query('SELECT id, status, version FROM timers ORDER BY id');
  return rows as Array<{ id: number; status: string; version: number }>;
}

/**
 * A raw request as a browser (or curl) would send it; `url` may name another host. A body
 * goes with its Content-Length, as every HTTP client sends it (app.request adds none).
 */
async function send(
  app: App,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: any; headers: Headers }> {
  const framed =
    body === undefined || 'transfer-encoding' in headers || 'content-length' in headers
      ? headers
      : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  const res = await app.request(url, { method, headers: framed, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // HTML or text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function newTimer(): Promise<number> {
  const res = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'browser' }));
  expect(res.status).toBe(201);
  return res.body.id;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const goCreate = JSON.stringify({
  app: 'browser',
  name: 'from-a-page',
  cron: '0 0 * * * *',
  notifyHTTPParam: { url: 'http://127.0.0.1:9/x' },
});

describe('open mode against cross-site requests', () => {
  it('refuses a body that is not declared JSON: a text/plain, form or multipart POST', async () => {
    const id = await newTimer();
    const before = await timerRows();
    const attempts: Array<[string, string, Record<string, string>, string?]> = [
      ['POST', '/api/timer/v1/def', { 'content-type': 'text/plain' }, goCreate],
      ['POST', '/api/timer/v1/def', { 'content-type': 'application/x-www-form-urlencoded' }, goCreate],
      ['POST', '/api/timer/v1/enable', { 'content-type': 'text/plain' }, JSON.stringify({ id })],
      ['POST', '/api/v1/timers', { 'content-type': 'text/plain' }, JSON.stringify(timerBody())],
      ['POST', '/api/v1/timers', {}, JSON.stringify(timerBody())],
      ['POST', `/api/v1/timers/${id}/enable`, { 'content-type': 'text/plain' }, '{}'],
      ['POST', `/api/v1/timers/${id}/enable`, { 'content-type': 'multipart/form-data; boundary=x' }, '--x--'],
      ['POST', `/api/v1/timers/${id}/disable`, { 'transfer-encoding': 'chunked' }, '{}'],
      ['POST', '/api/v1/apps', { 'content-type': 'text/plain' }, JSON.stringify({ app: 'sneaky' })],
    ];
    for (const [method, path, headers, body] of attempts) {
      const res = await send(open, method, path, headers, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(415);
    }
    expect(await timerRows()).toEqual(before);
  });

  it.each([
    ['Origin of another site', { origin: 'https://evil.example' }],
    ['Origin of another port of this host', { origin: 'http://localhost:3000' }],
    ['Origin null (a sandboxed or file: page)', { origin: 'null' }],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
  ])('refuses a change with %s (403 CROSS_SITE_REFUSED), even as JSON', async (_what, headers) => {
    const id = await newTimer();
    const before = await timerRows();
    for (const [method, path, body] of [
      ['POST', '/api/v1/timers', JSON.stringify(timerBody({ app: 'browser' }))],
      ['POST', `/api/v1/timers/${id}/enable`, undefined],
      ['PATCH', `/api/v1/timers/${id}`, JSON.stringify({ name: 'renamed' })],
      ['DELETE', `/api/v1/timers/${id}`, undefined],
      ['POST', '/api/timer/v1/def', goCreate],
    ] as const) {
      const res = await send(open, method, path, { ...JSON_TYPE, ...headers }, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      const code = path.startsWith('/api/timer/') ? res.body.msg.split(':')[0] : res.body.error.code;
      expect(code).toBe('CROSS_SITE_REFUSED');
    }
    expect(await timerRows()).toEqual(before);
  });

  it('lets a tool naming no origin (curl, Python requests, Go http.Post) change things without a body or a content type', async () => {
    const id = await newTimer();
    const { id: taskId } = (await send(open, 'POST', `/api/v1/timers/${id}/trigger`)).body;
    expect(taskId).toMatch(new RegExp(`^${id}_`));
    // curl -X POST sends no Content-Length; requests.post() and http.Post(url, "", nil) send 0.
    const tools: Array<[string, string, Record<string, string>, number]> = [
      ['POST', `/api/v1/timers/${id}/enable`, {}, 200],
      ['POST', `/api/v1/timers/${id}/disable`, { 'content-length': '0' }, 200],
      ['POST', `/api/v1/timers/${id}/enable`, { 'content-type': 'application/x-www-form-urlencoded' }, 200],
      ['POST', `/api/v1/timers/${id}/disable`, { 'content-type': 'text/plain', 'content-length': '0' }, 200],
      ['POST', `/api/v1/timers/${id}/trigger`, {}, 202],
      ['DELETE', `/api/timer/v1/def?id=${id}`, {}, 200],
    ];
    for (const [method, path, headers, status] of tools) {
      const res = await send(open, method, path, headers);
      expect(res.status, `${method} ${path} ${JSON.stringify(headers)}: ${JSON.stringify(res.body)}`).toBe(
        status,
      );
    }
    expect(await timerRows()).not.toContainEqual(expect.objectContaining({ id }));
    const other = await newTimer();
    // A run to retry: the one run-now made, failed.
    const failed = (await send(open, 'POST', `/api/v1/timers/${other}/trigger`)).body.id as string;
    await stores.database.pool.query("UPDATE tasks SET status = 'failed', attempts = 1 WHERE timer_id = ?", [
      other,
    ]);
    expect((await send(open, 'POST', `/api/v1/timers/${other}/tasks/${failed}/retry`)).status).toBe(202);
    expect((await send(open, 'DELETE', `/api/v1/timers/${other}`)).status).toBe(204);
    // The compatible enable takes its id in a body: without one it is the route's own 400, never 415.
    const compat = await send(open, 'POST', '/api/timer/v1/enable');
    expect(compat.status).not.toBe(415);
  });

  it('still wants a content type of a bodyless change a page sends, even of this origin', async () => {
    const id = await newTimer();
    for (const headers of [{ origin: 'http://localhost' }, { 'sec-fetch-site': 'same-origin' }]) {
      const res = await send(open, 'POST', `/api/v1/timers/${id}/enable`, headers);
      expect(res.status, JSON.stringify(headers)).toBe(415);
    }
  });

  it('lets a same-origin page and tools without an Origin (curl, SDKs) change things', async () => {
    const id = await newTimer();
    const sameOrigin = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin', ...JSON_TYPE };
    expect((await send(open, 'POST', `/api/v1/timers/${id}/enable`, sameOrigin)).status).toBe(200);
    expect((await send(open, 'POST', `/api/v1/timers/${id}/disable`, JSON_TYPE)).status).toBe(200);
    // Sec-Fetch-Site, which a page cannot set, outranks an Origin a referrer policy nulled.
    const nulled = { origin: 'null', 'sec-fetch-site': 'same-origin', ...JSON_TYPE };
    expect((await send(open, 'POST', `/api/v1/timers/${id}/disable`, nulled)).status).toBe(200);
    expect(
      (await send(open, 'POST', `/api/v1/timers/${id}/enable`, { 'sec-fetch-site': 'none', ...JSON_TYPE }))
        .status,
    ).toBe(200);
    expect(
      (await send(open, 'POST', '/api/v1/timers', JSON_TYPE, JSON.stringify(timerBody({ app: 'browser' }))))
        .status,
    ).toBe(201);
    // A DELETE without a body needs no content type: no page can send one to another origin.
    expect((await send(open, 'DELETE', `/api/v1/timers/${id}`)).status).toBe(204);
    // Reads need nothing.
    expect((await send(open, 'GET', '/api/v1/timers', { origin: 'https://evil.example' })).status).toBe(200);
  });

  it('leaves a request with a token to the token check, and token mode to the token alone', async () => {
    // A page cannot attach a token to a request to another origin.
    const res = await send(secured, 'POST', '/api/v1/timers/1/enable', { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(404);
    const noToken = await send(
      secured,
      'POST',
      '/api/v1/timers',
      { origin: 'https://evil.example', 'content-type': 'text/plain' },
      '{}',
    );
    expect(noToken.status).toBe(401);
  });
});

describe('open mode against DNS rebinding (Host)', () => {
  it.each([
    'http://localhost/api/v1/timers',
    'http://127.0.0.1:8081/api/v1/timers',
    'http://[::1]:8081/api/v1/timers',
    'http://xtimer.example.com/api/v1/timers',
    'http://XTIMER.example.com./api/v1/timers',
  ])('answers %s', async (url) => {
    expect((await send(open, 'GET', url)).status).toBe(200);
  });

  it.each([
    'http://rebound.evil.example/api/v1/timers',
    'http://rebound.evil.example:8081/dashboard/timers',
    'http://192.168.1.10:8081/openapi.json',
    'http://127.0.0.1.nip.io/metrics',
  ])('refuses %s with 421 HOST_NOT_ALLOWED', async (url) => {
    const res = await send(open, 'GET', url);
    expect(res.status).toBe(421);
    expect(res.body.error.code).toBe('HOST_NOT_ALLOWED');
    expect(res.body.error.message).toContain('PUBLIC_HOSTS');
  });

  it('refuses a change through another Host and changes nothing', async () => {
    const id = await newTimer();
    const before = await timerRows();
    const res = await send(open, 'POST', `http://rebound.evil.example/api/v1/timers/${id}/enable`, JSON_TYPE);
    expect(res.status).toBe(421);
    const compat = await send(
      open,
      'POST',
      'http://rebound.evil.example/api/timer/v1/enable',
      JSON_TYPE,
      JSON.stringify({ id }),
    );
    expect(compat.status).toBe(421);
    expect(compat.body.msg).toMatch(/^HOST_NOT_ALLOWED: /);
    expect(await timerRows()).toEqual(before);
  });

  it('leaves the probes reachable by any name, and token mode to its token', async () => {
    expect((await send(open, 'GET', 'http://10.1.2.3:8081/healthz')).status).toBe(200);
    expect((await send(open, 'GET', 'http://10.1.2.3:8081/readyz')).status).toBe(200);
    expect((await send(secured, 'GET', 'http://xtimer.internal/api/v1/timers')).status).toBe(401);
  });
});

describe('browser headers', () => {
  it.each([
    '/dashboard',
    '/dashboard/queues',
    '/dashboard/timers',
    '/docs',
    '/openapi.json',
    '/api/v1/timers',
    '/nowhere',
  ])('%s may not be framed or sniffed, and sends no referrer to other sites', async (path) => {
    const res = await send(open, 'GET', path);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('serves pages whose every script is a file of this origin, so no inline script is needed', async () => {
    const id = await newTimer();
    for (const path of [
      '/dashboard/timers',
      `/dashboard/timers/${id}`,
      `/dashboard/timers/${id}/edit`,
      '/docs',
    ]) {
      const page = await send(open, 'GET', path);
      expect(page.status, path).toBe(200);
      const scripts = [...String(page.body).matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const [, attributes, text] of scripts) {
        // bull-board's configuration is data (type="application/json"), which the CSP does not run.
        if (/type="application\/json"/.test(attributes!)) continue;
        expect(text!.trim(), `${path}: inline script`).toBe('');
        const src = /src="([^"]+)"/.exec(attributes!)?.[1];
        expect(src, path).toMatch(/^\/(dashboard|docs)\//);
        const script = await send(open, 'GET', src!);
        expect(script.status, src).toBe(200);
        expect(script.headers.get('content-type'), src).toMatch(/^text\/javascript/);
      }
    }
  });
});

describe('line breaks in query parameters', () => {
  it.each([
    '/dashboard/timers?app=a%0d%0aSet-Cookie:%20x=1',
    '/dashboard/timers/1?at=2026-01-01%0A',
    '/api/v1/timers?app=billing%0D',
    '/docs?x=%0a',
  ])('answers %s with 400', async (path) => {
    const res = await send(open, 'GET', path);
    expect(res.status).toBe(400);
  });

  it('refuses one on the compatible routes as the Go xTimer refuses bad input (code -1)', async () => {
    const res = await send(open, 'GET', '/api/timer/v1/defsByName?app=a&name=x%0ay');
    expect(res.body).toMatchObject({
      code: -1,
      msg: expect.stringMatching(/^VALIDATION_FAILED: .*CR or LF/),
    });
  });

  it('answers a dashboard form whose back parameter holds CR/LF with 400, changing nothing', async () => {
    const id = await newTimer();
    const before = await timerRows();
    // The form's CSRF token, as the page gave it.
    const cookie = /xtimer_csrf=[^;]+/.exec(
      (await send(open, 'GET', '/dashboard/timers')).headers.get('set-cookie')!,
    )![0];
    const csrf = cookie.split('=')[1]!;
    for (const back of ['/dashboard/timers\r\nSet-Cookie: x=1', '/dashboard/timers?app=a\nb']) {
      const res = await send(
        open,
        'POST',
        `/dashboard/timers/${id}/enable`,
        { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost', cookie },
        new URLSearchParams({ back, csrf }).toString(),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    expect(await timerRows()).toEqual(before);
  });
});
