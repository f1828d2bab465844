import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Bad input is rejected with 400 (413 oversize, 404 unknown id, 409 duplicate
 * name), in the error envelope, and changes nothing.
 */

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('timersvalid');
  app = createTestApp(createTestCore(stores));
});
afterAll(async () => {
  await stores.cleanup();
});

const KiB = 1024;
const MiB = 1024 * KiB;

async function countRows(table: 'timers' | 'tasks'): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

const callback = (overrides: Record<string, unknown>) => ({
  ...(timerBody().callback as Record<string, unknown>),
  ...overrides,
});

function expectEnvelope(body: unknown, code: string): void {
  expect(body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String) }),
  });
  const error = (body as { error: Record<string, unknown> }).error;
  expect(Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
  expect((error.message as string).length).toBeGreaterThan(0);
}

interface BadCreate {
  what: string;
  /** A JSON value (stringified) or a raw string sent as is. */
  body: unknown;
  status: number;
  code: string;
  messageMentions?: string;
}

const badCreates: BadCreate[] = [
  // cron
  {
    what: 'a cron field out of range (6 fields)',
    body: timerBody({ cron: '0 61 * * * *' }),
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'minute',
  },
  {
    what: 'a cron hour out of range (5 fields)',
    body: timerBody({ cron: '0 25 * * *' }),
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'hour',
  },
  {
    what: 'a cron seconds field out of range',
    body: timerBody({ cron: '60 * * * * *' }),
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'second',
  },
  {
    what: 'a cron month out of range',
    body: timerBody({ cron: '0 0 1 13 *' }),
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'month',
  },
  {
    what: 'a cron with 4 fields',
    body: timerBody({ cron: '* * * *' }),
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'fields',
  },
  {
    what: 'an 8-field cron',
    body: timerBody({ cron: '0 0 0 * * ? 2030 1' }),
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'cron: has 8 fields, expected 5, 6 or 7',
  },
  {
    what: 'a garbage cron',
    body: timerBody({ cron: 'every day at noon' }),
    status: 400,
    code: 'INVALID_CRON',
  },
  { what: 'an empty cron', body: timerBody({ cron: '' }), status: 400, code: 'INVALID_CRON' },
  { what: 'a cron that is not a string', body: timerBody({ cron: 5 }), status: 400, code: 'INVALID_CRON' },
  { what: 'a missing cron', body: timerBody({ cron: undefined }), status: 400, code: 'INVALID_CRON' },
  // timezone
  {
    what: 'an unknown time zone',
    body: timerBody({ timezone: 'Mars/Olympus_Mons' }),
    status: 400,
    code: 'INVALID_TIMEZONE',
  },
  { what: 'an empty time zone', body: timerBody({ timezone: '' }), status: 400, code: 'INVALID_TIMEZONE' },
  {
    what: 'EST, a fixed offset that reads as New York',
    body: timerBody({ timezone: 'EST' }),
    status: 400,
    code: 'INVALID_TIMEZONE',
    messageMentions: 'America/New_York',
  },
  // url
  {
    what: 'an ftp: URL',
    body: timerBody({ callback: callback({ url: 'ftp://files.internal/x' }) }),
    status: 400,
    code: 'INVALID_URL',
  },
  {
    what: 'a javascript: URL',
    body: timerBody({ callback: callback({ url: 'javascript:alert(1)' }) }),
    status: 400,
    code: 'INVALID_URL',
  },
  {
    what: 'a relative URL',
    body: timerBody({ callback: callback({ url: '/hooks/run' }) }),
    status: 400,
    code: 'INVALID_URL',
  },
  {
    what: 'an empty URL',
    body: timerBody({ callback: callback({ url: '' }) }),
    status: 400,
    code: 'INVALID_URL',
  },
  {
    what: 'a missing URL',
    body: timerBody({ callback: callback({ url: undefined }) }),
    status: 400,
    code: 'INVALID_URL',
  },
  // method
  {
    what: 'an unknown method',
    body: timerBody({ callback: callback({ method: 'TRACE' }) }),
    status: 400,
    code: 'INVALID_METHOD',
  },
  {
    what: 'a lowercase method',
    body: timerBody({ callback: callback({ method: 'get' }) }),
    status: 400,
    code: 'INVALID_METHOD',
  },
  // headers
  {
    what: 'headers given as an array',
    body: timerBody({ callback: callback({ headers: ['content-type: application/json'] }) }),
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'a header with a number value',
    body: timerBody({ callback: callback({ headers: { 'x-count': 1 } }) }),
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'a header with a nested object value',
    body: timerBody({ callback: callback({ headers: { 'x-nested': { a: 'b' } } }) }),
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'a header value with CRLF',
    body: timerBody({ callback: callback({ headers: { 'x-evil': 'a\r\nx-injected: 1' } }) }),
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'a header name that is not an HTTP token',
    body: timerBody({ callback: callback({ headers: { 'bad header': 'v' } }) }),
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'headers over 8 KiB in total (64 KiB of them once made a 500)',
    body: timerBody({
      callback: callback({ headers: { 'x-a': 'a'.repeat(5000), 'x-b': 'b'.repeat(5000) } }),
    }),
    status: 400,
    code: 'INVALID_HEADERS',
    messageMentions: '8192 bytes',
  },
  {
    what: '64 headers of 8 KiB each',
    body: timerBody({
      callback: callback({
        headers: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`x-h${i}`, 'v'.repeat(8 * KiB)])),
      }),
    }),
    status: 400,
    code: 'INVALID_HEADERS',
  },
  // credentials in the URL
  {
    what: 'user:password@ in the callback URL',
    body: timerBody({ callback: callback({ url: 'https://user:secret@hooks.example.com/run' }) }),
    status: 400,
    code: 'INVALID_URL',
    messageMentions: 'callback.headers',
  },
  {
    what: 'a user name alone in the callback URL',
    body: timerBody({ callback: callback({ url: 'https://token@hooks.example.com/run' }) }),
    status: 400,
    code: 'INVALID_URL',
  },
  // callback body
  {
    what: 'a callback body over 64 KiB',
    body: timerBody({ callback: callback({ body: 'x'.repeat(64 * KiB + 1) }) }),
    status: 400,
    code: 'CALLBACK_BODY_TOO_LARGE',
  },
  {
    what: 'a callback body over 64 KiB in UTF-8 bytes though not in characters',
    body: timerBody({ callback: callback({ body: 'é'.repeat(32 * KiB + 1) }) }),
    status: 400,
    code: 'CALLBACK_BODY_TOO_LARGE',
  },
  // app
  { what: 'an empty app', body: timerBody({ app: '' }), status: 400, code: 'INVALID_APP' },
  { what: 'a 65-character app', body: timerBody({ app: 'a'.repeat(65) }), status: 400, code: 'INVALID_APP' },
  {
    what: 'an app with bad characters',
    body: timerBody({ app: 'bill ing!' }),
    status: 400,
    code: 'INVALID_APP',
  },
  { what: 'a missing app', body: timerBody({ app: undefined }), status: 400, code: 'INVALID_APP' },
  // name
  { what: 'an empty name', body: timerBody({ name: '' }), status: 400, code: 'INVALID_NAME' },
  {
    what: 'a 256-character name',
    body: timerBody({ name: 'n'.repeat(256) }),
    status: 400,
    code: 'INVALID_NAME',
  },
  { what: 'a name with a newline', body: timerBody({ name: 'a\nb' }), status: 400, code: 'INVALID_NAME' },
  // misfire policy
  {
    what: 'an unknown misfire policy',
    body: timerBody({ misfirePolicy: 'sometimes' }),
    status: 400,
    code: 'INVALID_MISFIRE_POLICY',
  },
  // retry
  {
    what: 'retry.maxAttempts 0',
    body: timerBody({ retry: { maxAttempts: 0, backoffMs: 1000 } }),
    status: 400,
    code: 'INVALID_RETRY',
  },
  {
    what: 'retry.maxAttempts 21',
    body: timerBody({ retry: { maxAttempts: 21, backoffMs: 1000 } }),
    status: 400,
    code: 'INVALID_RETRY',
  },
  {
    what: 'retry.backoffMs -1',
    body: timerBody({ retry: { maxAttempts: 3, backoffMs: -1 } }),
    status: 400,
    code: 'INVALID_RETRY',
  },
  {
    what: 'a fractional retry.maxAttempts',
    body: timerBody({ retry: { maxAttempts: 2.5 } }),
    status: 400,
    code: 'INVALID_RETRY',
  },
  // whole body
  { what: 'malformed JSON', body: '{"app": "billing", ', status: 400, code: 'INVALID_JSON' },
  {
    what: 'a request body over 1 MiB',
    body: JSON.stringify(timerBody({ name: 'n'.repeat(MiB + 1) })),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    what: 'an unknown top-level field',
    body: timerBody({ colour: 'red' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    messageMentions: 'colour',
  },
  {
    what: 'an unknown callback field',
    body: timerBody({ callback: callback({ verb: 'POST' }) }),
    status: 400,
    code: 'VALIDATION_FAILED',
    messageMentions: 'verb',
  },
  { what: 'a JSON array instead of an object', body: [timerBody()], status: 400, code: 'VALIDATION_FAILED' },
];

describe('POST /api/v1/timers rejects bad input and stores nothing', () => {
  it.each(badCreates)('rejects $what with $status $code', async ({ body, status, code, messageMentions }) => {
    const before = await countRows('timers');
    const res = await call(app, 'POST', '/api/v1/timers', body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expectEnvelope(res.body, code);
    if (messageMentions) expect(res.body.error.message).toContain(messageMentions);
    expect(await countRows('timers')).toBe(before);
  });

  it('accepts a callback body of exactly 64 KiB', async () => {
    const body = 'x'.repeat(64 * KiB);
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ callback: callback({ body }) }));
    expect(res.status).toBe(201);
    expect(res.body.callback.body).toBe(body);
  });

  it('accepts callback headers of exactly 8 KiB in total, names included', async () => {
    const headers = { 'x-a': 'a'.repeat(4 * KiB - 3), 'x-b': 'b'.repeat(4 * KiB - 3) };
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ callback: callback({ headers }) }));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.body.callback.headers).toEqual(headers);
  });

  it('accepts an app of exactly 64 characters and a name of exactly 255', async () => {
    const res = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'a'.repeat(64), name: 'n'.repeat(255) }),
    );
    expect(res.status).toBe(201);
  });

  it('accepts retry bounds 1 and 20 attempts and 0 ms backoff', async () => {
    for (const maxAttempts of [1, 20]) {
      const res = await call(
        app,
        'POST',
        '/api/v1/timers',
        timerBody({ retry: { maxAttempts, backoffMs: 0 } }),
      );
      expect(res.status).toBe(201);
      expect(res.body.retry).toEqual({ maxAttempts, backoffMs: 0 });
    }
  });

  it('rejects a duplicate (app, name) with 409 TIMER_NAME_TAKEN and stores nothing', async () => {
    const first = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'dup', name: 'same' }));
    expect(first.status).toBe(201);
    const before = await countRows('timers');
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'dup', name: 'same' }));
    expect(res.status).toBe(409);
    expectEnvelope(res.body, 'TIMER_NAME_TAKEN');
    expect(await countRows('timers')).toBe(before);
    // The same name in another app, or differing in case, is a different timer.
    expect((await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'dup2', name: 'same' }))).status).toBe(
      201,
    );
    expect((await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'dup', name: 'Same' }))).status).toBe(
      201,
    );
  });

  it('lets exactly one of several concurrent creates of the same name win', async () => {
    const before = await countRows('timers');
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(app, 'POST', '/api/v1/timers', timerBody({ app: 'race', name: 'only-one' })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expectEnvelope(r.body, 'TIMER_NAME_TAKEN');
    expect(await countRows('timers')).toBe(before + 1);
  });

  it('serves concurrent creates of different names in one app', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(app, 'POST', '/api/v1/timers', timerBody({ app: 'busy', name: `n${i}` })),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
  });

  it('rejects a body sent as text/plain with 415 and stores nothing', async () => {
    const before = await countRows('timers');
    const res = await call(app, 'POST', '/api/v1/timers', JSON.stringify(timerBody()), {
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(415);
    expectEnvelope(res.body, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await countRows('timers')).toBe(before);
  });
});

describe('unknown and malformed ids', () => {
  const paths = [
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['POST', '/enable'],
    ['POST', '/disable'],
    ['GET', '/tasks'],
    ['GET', '/preview'],
  ] as const;

  it.each(paths)('%s /api/v1/timers/<unknown>%s answers 404 TIMER_NOT_FOUND', async (method, suffix) => {
    const before = await countRows('timers');
    const res = await call(
      app,
      method,
      `/api/v1/timers/987654321${suffix}`,
      method === 'PATCH' ? { name: 'x' } : undefined,
    );
    expect(res.status).toBe(404);
    expectEnvelope(res.body, 'TIMER_NOT_FOUND');
    expect(await countRows('timers')).toBe(before);
  });

  it.each(
    paths.flatMap(([method, suffix]) => ['abc', '0', '-1', '1.5', '1e3'].map((id) => [method, id, suffix])),
  )('%s /api/v1/timers/%s%s (not a positive integer id) answers 400', async (method, id, suffix) => {
    const res = await call(
      app,
      method as string,
      `/api/v1/timers/${id}${suffix}`,
      method === 'PATCH' ? { name: 'x' } : undefined,
    );
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_FAILED');
  });
});

interface BadPatch {
  what: string;
  body: unknown;
  status: number;
  code: string;
  messageMentions?: string;
}

const badPatches: BadPatch[] = [
  {
    what: 'a cron field out of range',
    body: { cron: '0 0 32 * *' },
    status: 400,
    code: 'INVALID_CRON',
    messageMentions: 'dayOfMonth',
  },
  { what: 'a garbage cron', body: { cron: 'nope' }, status: 400, code: 'INVALID_CRON' },
  {
    what: 'an unknown time zone',
    body: { timezone: 'Europe/Atlantis' },
    status: 400,
    code: 'INVALID_TIMEZONE',
  },
  {
    what: 'a non-http URL',
    body: { callback: { url: 'file:///etc/passwd' } },
    status: 400,
    code: 'INVALID_URL',
  },
  { what: 'an empty URL', body: { callback: { url: '' } }, status: 400, code: 'INVALID_URL' },
  { what: 'an unknown method', body: { callback: { method: 'TRACE' } }, status: 400, code: 'INVALID_METHOD' },
  { what: 'a lowercase method', body: { callback: { method: 'post' } }, status: 400, code: 'INVALID_METHOD' },
  {
    what: 'headers given as an array',
    body: { callback: { headers: [] } },
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'a header value with CRLF',
    body: { callback: { headers: { a: 'b\r\nc: d' } } },
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'headers over 8 KiB in total',
    body: { callback: { headers: { 'x-a': 'a'.repeat(8 * KiB) } } },
    status: 400,
    code: 'INVALID_HEADERS',
  },
  {
    what: 'user:password@ in the callback URL',
    body: { callback: { url: 'http://user:secret@93.184.215.14/hook' } },
    status: 400,
    code: 'INVALID_URL',
  },
  {
    what: 'a callback body over 64 KiB',
    body: { callback: { body: 'x'.repeat(64 * KiB + 1) } },
    status: 400,
    code: 'CALLBACK_BODY_TOO_LARGE',
  },
  { what: 'an empty name', body: { name: '' }, status: 400, code: 'INVALID_NAME' },
  { what: 'a 256-character name', body: { name: 'n'.repeat(256) }, status: 400, code: 'INVALID_NAME' },
  {
    what: 'an unknown misfire policy',
    body: { misfirePolicy: 'never' },
    status: 400,
    code: 'INVALID_MISFIRE_POLICY',
  },
  { what: 'retry.maxAttempts 0', body: { retry: { maxAttempts: 0 } }, status: 400, code: 'INVALID_RETRY' },
  { what: 'retry.maxAttempts 21', body: { retry: { maxAttempts: 21 } }, status: 400, code: 'INVALID_RETRY' },
  { what: 'retry.backoffMs -1', body: { retry: { backoffMs: -1 } }, status: 400, code: 'INVALID_RETRY' },
  { what: 'malformed JSON', body: '{"name": ', status: 400, code: 'INVALID_JSON' },
  {
    what: 'a request body over 1 MiB',
    body: JSON.stringify({ name: 'n'.repeat(MiB + 1) }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    what: 'an unknown field',
    body: { colour: 'red' },
    status: 400,
    code: 'VALIDATION_FAILED',
    messageMentions: 'colour',
  },
  { what: 'a change of app (not patchable)', body: { app: 'other' }, status: 400, code: 'VALIDATION_FAILED' },
  {
    what: 'a status (use enable/disable)',
    body: { status: 'active' },
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    what: 'a GET method while the timer has a callback body',
    body: { callback: { method: 'GET' } },
    status: 400,
    code: 'VALIDATION_FAILED',
  },
];

describe('PATCH /api/v1/timers/:id rejects bad input and leaves the timer unchanged', () => {
  let timerId: number;

  beforeAll(async () => {
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'patchy', name: 'target' }));
    expect(res.status).toBe(201);
    timerId = res.body.id;
    expect(
      (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'patchy', name: 'taken' }))).status,
    ).toBe(201);
  });

  it.each(badPatches)('rejects $what with $status $code', async ({ body, status, code, messageMentions }) => {
    const before = await call(app, 'GET', `/api/v1/timers/${timerId}`);
    const res = await call(app, 'PATCH', `/api/v1/timers/${timerId}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expectEnvelope(res.body, code);
    if (messageMentions) expect(res.body.error.message).toContain(messageMentions);
    const after = await call(app, 'GET', `/api/v1/timers/${timerId}`);
    expect(after.body).toEqual(before.body);
  });

  it('rejects a rename to a name the app already uses with 409 and leaves the timer unchanged', async () => {
    const before = await call(app, 'GET', `/api/v1/timers/${timerId}`);
    const res = await call(app, 'PATCH', `/api/v1/timers/${timerId}`, { name: 'taken' });
    expect(res.status).toBe(409);
    expectEnvelope(res.body, 'TIMER_NAME_TAKEN');
    expect((await call(app, 'GET', `/api/v1/timers/${timerId}`)).body).toEqual(before.body);
  });
});

describe('unknown routes', () => {
  it('answer 404 NOT_FOUND in the error envelope', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nothing'],
      ['PUT', '/api/v1/timers/1'],
      ['GET', '/api/v2/timers'],
    ] as const) {
      const res = await call(app, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expectEnvelope(res.body, 'NOT_FOUND');
    }
  });
});

describe('query parameters', () => {
  it('rejects a cursor the API never returned with 400 INVALID_CURSOR', async () => {
    // '%%' and '' decode to nothing (Number('') is 0); 'MTIz!' decodes leniently to "123".
    for (const cursor of ['not-a-cursor!', 'bm9wZQ', '-1', '%%', '', 'MTIz!', 'LTE']) {
      const res = await call(app, 'GET', `/api/v1/timers?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(400);
      expectEnvelope(res.body, 'INVALID_CURSOR');
    }
  });

  it('rejects a list limit outside 1-500 and an unknown status filter', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=ten', 'status=paused', 'app=bad%20app']) {
      const res = await call(app, 'GET', `/api/v1/timers?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toMatch(/^[A-Z_]+$/);
    }
    expect((await call(app, 'GET', '/api/v1/timers?app=bad%20app')).body.error.code).toBe('INVALID_APP');
  });

  it("names every missing field of an empty body, and an unknown key by its name, in the API's words", async () => {
    const empty = await call(app, 'POST', '/api/v1/timers', {});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'missing app, name, callback',
    });
    expect(empty.body.error.details).toEqual([
      { path: 'app', message: 'is required (a string)' },
      { path: 'name', message: 'is required (a string)' },
      { path: 'callback', message: 'is required (an object)' },
    ]);
    const unknown = await call(app, 'POST', '/api/v1/timers', { ...timerBody(), label: 'x' });
    expect(unknown.body.error.details).toEqual([{ path: 'label', message: 'is not a field here' }]);
    const wrongType = await call(app, 'POST', '/api/v1/timers', {
      ...timerBody(),
      callback: 'https://x.example',
    });
    expect(wrongType.body.error.message).toBe('callback: must be an object, not a string');
    expect(JSON.stringify([empty.body, unknown.body, wrongType.body])).not.toContain('Invalid input');
  });

  it('says what a limit may be: a whole number, at most 500', async () => {
    const messages = async (q: string) =>
      JSON.stringify((await call(app, 'GET', `/api/v1/timers?${q}`)).body.error.details);
    expect(await messages('limit=1000000')).toContain('must be at most 500');
    expect(await messages('limit=0')).toContain('must be at least 1');
    expect(await messages('limit=ten')).toContain('must be a whole number');
  });
});
