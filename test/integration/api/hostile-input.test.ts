import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * A bad-input sweep: hostile inputs of every kind — SQL and header injection,
 * CRLF, enormous and deeply nested JSON, unicode edge cases, numbers out of every
 * range, wrong types, path traversal — each answered with a 4xx and an error code,
 * nothing stored, and the process healthy afterwards.
 *
 * Names are free text: a name that reads like SQL is stored verbatim (queries are
 * parameterised), which the last block shows. What names may not hold is what hides
 * or reorders text: control characters, unpaired surrogates, bidi controls, zero-width
 * spaces. Emoji and the joiners they are built with are names like any other.
 */

const ADMIN = { authorization: 'Bearer admin-token-for-the-sweep-0123456789' };

let stores: TestStores;
let app: App;
let key: Record<string, string>;
let existingId: number;

beforeAll(async () => {
  stores = await createTestStores('hostile', {
    XTIMER_ADMIN_TOKEN: ADMIN.authorization.slice('Bearer '.length),
    XTIMER_SECRET_KEY: 'secret-key-for-the-sweep-0123456789',
  });
  app = createTestApp(createTestCore(stores));
  const created = await call(app, 'POST', '/api/v1/apps', { app: 'sweep' }, ADMIN);
  key = { authorization: `Bearer ${created.body.apiKey}` };
  existingId = (await call(app, 'POST', '/api/v1/timers', body(), key)).body.id;
});
afterAll(async () => {
  await stores.cleanup();
});

const PUBLIC_URL = 'http://93.184.215.14/hook';

function body(overrides: Record<string, unknown> = {}, callback: Record<string, unknown> = {}) {
  return timerBody({
    app: 'sweep',
    cron: '0 */5 * * * *',
    callback: { url: PUBLIC_URL, method: 'POST', headers: {}, body: '{}', ...callback },
    ...overrides,
  });
}

/** A valid create body, as JSON text with `field`'s value replaced by raw JSON. */
function rawWith(field: 'name' | 'app' | 'cron', rawValue: string): string {
  return JSON.stringify(body({ [field]: '__RAW__' })).replace('"__RAW__"', rawValue);
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

interface Hostile {
  what: string;
  method: string;
  path: string;
  body?: unknown;
  status: number;
  code: string;
}

const native = (what: string, sent: unknown, code: string, status = 400): Hostile => ({
  what,
  method: 'POST',
  path: '/api/v1/timers',
  body: sent,
  status,
  code,
});
const get = (what: string, path: string, code: string, status = 400): Hostile => ({
  what,
  method: 'GET',
  path,
  status,
  code,
});

const HOSTILE: Hostile[] = [
  // SQL injection where it is not text
  native('SQL in app', body({ app: "sweep'; DROP TABLE timers; --" }), 'INVALID_APP'),
  native('SQL tautology in app', body({ app: "' OR '1'='1" }), 'INVALID_APP'),
  native('SQL in cron', body({ cron: "0 0 * * * *'; DELETE FROM timers; --" }), 'INVALID_CRON'),
  native('SQL in timezone', body({ timezone: "UTC' OR 1=1 --" }), 'INVALID_TIMEZONE'),
  native('SQL in misfirePolicy', body({ misfirePolicy: "skip'; --" }), 'INVALID_MISFIRE_POLICY'),
  get('SQL in the app query', `/api/v1/timers?app=${encodeURIComponent("' OR 1=1 --")}`, 'INVALID_APP'),
  get(
    'SQL in the status query',
    `/api/v1/timers?status=${encodeURIComponent("active' OR '1'='1")}`,
    'VALIDATION_FAILED',
  ),
  get('SQL in the cursor', `/api/v1/timers?cursor=${encodeURIComponent('1 OR 1=1')}`, 'INVALID_CURSOR'),
  get(
    'SQL in the limit',
    `/api/v1/timers?limit=${encodeURIComponent('10; DROP TABLE timers')}`,
    'VALIDATION_FAILED',
  ),
  get(
    'SQL in a task status',
    `/api/v1/timers/1/tasks?status=${encodeURIComponent("failed') OR 1=1 --")}`,
    'VALIDATION_FAILED',
  ),
  get(
    'SQL in a task time',
    `/api/v1/timers/1/tasks?from=${encodeURIComponent('0 UNION SELECT 1')}`,
    'VALIDATION_FAILED',
  ),
  // header injection
  native('CRLF in a header value', body({}, { headers: { 'x-a': 'b\r\nx-injected: 1' } }), 'INVALID_HEADERS'),
  native(
    'a bare LF in a header value',
    body({}, { headers: { 'x-a': 'b\nx-injected: 1' } }),
    'INVALID_HEADERS',
  ),
  native('NUL in a header value', body({}, { headers: { 'x-a': 'b\u0000c' } }), 'INVALID_HEADERS'),
  native(
    'a control character in a header value',
    body({}, { headers: { 'x-a': 'b\u0007' } }),
    'INVALID_HEADERS',
  ),
  native('an emoji in a header value', body({}, { headers: { 'x-a': '😀' } }), 'INVALID_HEADERS'),
  native('CRLF in a header name', body({}, { headers: { 'x-a\r\nx-injected': 'v' } }), 'INVALID_HEADERS'),
  native('a colon in a header name', body({}, { headers: { 'x-a: b': 'v' } }), 'INVALID_HEADERS'),
  native('an empty header name', body({}, { headers: { '': 'v' } }), 'INVALID_HEADERS'),
  native('a Host header', body({}, { headers: { Host: 'internal.example' } }), 'INVALID_HEADERS'),
  native('a Content-Length header', body({}, { headers: { 'content-length': '0' } }), 'INVALID_HEADERS'),
  native(
    'a Transfer-Encoding header',
    body({}, { headers: { 'Transfer-Encoding': 'chunked' } }),
    'INVALID_HEADERS',
  ),
  // A key `__proto__` would vanish from what is stored; names like toString are names.
  native('a label named __proto__', body({ labels: JSON.parse('{"__proto__":"x"}') }), 'VALIDATION_FAILED'),
  native(
    'a header named __proto__, spelled with escapes',
    JSON.stringify(body({}, { headers: { PROTO: 'v' } })).replace('PROTO', '\\u005f_proto__'),
    'VALIDATION_FAILED',
  ),
  native('a forged task id header', body({}, { headers: { 'X-Xtimer-Task-Id': '1_1' } }), 'INVALID_HEADERS'),
  native(
    'a forged signature header',
    body({}, { headers: { 'webhook-signature': 'v1,AAAA' } }),
    'INVALID_HEADERS',
  ),
  native(
    'CRLF in the callback URL',
    body({}, { url: 'http://93.184.215.14/a\r\nHost: evil' }),
    'INVALID_URL',
  ),
  native('a space in the callback URL', body({}, { url: 'http://93.184.215.14/a b' }), 'INVALID_URL'),
  native(
    'a metadata callback URL',
    body({}, { url: 'http://169.254.169.254/latest/meta-data/' }),
    'TARGET_BLOCKED',
  ),
  native('a NAT64 loopback callback URL', body({}, { url: 'http://[64:ff9b::7f00:1]/' }), 'TARGET_BLOCKED'),
  native('a 6to4 callback URL', body({}, { url: 'http://[2002:a9fe:a9fe::1]/' }), 'TARGET_BLOCKED'),
  native(
    'credentials in the callback URL',
    body({}, { url: 'https://admin:hunter2@93.184.215.14/hook' }),
    'INVALID_URL',
  ),
  native(
    '64 KiB of callback headers (once a 500)',
    body(
      {},
      { headers: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x-h${i}`, 'v'.repeat(8192)])) },
    ),
    'INVALID_HEADERS',
  ),
  native('a cron padded past its column', body({ cron: `0 */5 * * * *${' '.repeat(200)}` }), 'INVALID_CRON'),
  // size and depth
  native('a body over 1 MiB', body({}, { body: 'x'.repeat(1024 * 1024 + 1) }), 'PAYLOAD_TOO_LARGE', 413),
  native('100k nested arrays as the body', nested(100_000), 'VALIDATION_FAILED'),
  native('100k nested arrays as the name', rawWith('name', nested(100_000)), 'INVALID_NAME'),
  native(
    '100k nested objects as the app',
    rawWith('app', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`),
    'INVALID_APP',
  ),
  native('truncated JSON', '{"app": "sweep", "name": "x"', 'INVALID_JSON'),
  native('JSON with a trailing comma', '{"app": "sweep",}', 'INVALID_JSON'),
  native('NaN in JSON', rawWith('name', 'NaN'), 'INVALID_JSON'),
  native('a body that is JSON null', 'null', 'VALIDATION_FAILED'),
  native('a body that is a JSON string', '"timer"', 'VALIDATION_FAILED'),
  native('an empty body', '', 'INVALID_JSON'),
  // unicode in names
  native('an unpaired high surrogate', rawWith('name', '"a\\ud800b"'), 'INVALID_NAME'),
  native('an unpaired low surrogate', rawWith('name', '"\\udc00"'), 'INVALID_NAME'),
  native('a right-to-left override', body({ name: 'invoice\u202Etxt.exe' }), 'INVALID_NAME'),
  native('a bidi isolate', body({ name: 'a\u2066b\u2069' }), 'INVALID_NAME'),
  native('a zero-width space', body({ name: 'nightly\u200Binvoice' }), 'INVALID_NAME'),
  native('a byte-order mark', body({ name: '\uFEFFnightly' }), 'INVALID_NAME'),
  native('a NUL', body({ name: 'a\u0000b' }), 'INVALID_NAME'),
  native('a line break', body({ name: 'a\nb' }), 'INVALID_NAME'),
  native('only white space', body({ name: '   ' }), 'INVALID_NAME'),
  native('a name over 255 characters', body({ name: 'é'.repeat(256) }), 'INVALID_NAME'),
  native('a non-ASCII app', body({ app: 'bïlling' }), 'INVALID_APP'),
  native('a fullwidth-digit app', body({ app: '１２３' }), 'INVALID_APP'),
  // numbers
  native('a negative timeout', body({}, { timeoutMs: -1 }), 'VALIDATION_FAILED'),
  native('a huge timeout', body({}, { timeoutMs: 1e308 }), 'VALIDATION_FAILED'),
  native('an overflowing timeout', rawWith('name', '"x", "misfireThresholdMs": 1e309'), 'VALIDATION_FAILED'),
  native('a fractional timeout', body({}, { timeoutMs: 1000.5 }), 'VALIDATION_FAILED'),
  native('a timeout beyond 2^53', body({}, { timeoutMs: 2 ** 53 + 2 }), 'VALIDATION_FAILED'),
  native('negative attempts', body({ retry: { maxAttempts: -3, backoffMs: 1 } }), 'INVALID_RETRY'),
  native('zero attempts', body({ retry: { maxAttempts: 0, backoffMs: 1 } }), 'INVALID_RETRY'),
  native('a negative misfire threshold', body({ misfireThresholdMs: -1 }), 'VALIDATION_FAILED'),
  get('a negative limit', '/api/v1/timers?limit=-1', 'VALIDATION_FAILED'),
  get('a zero limit', '/api/v1/timers?limit=0', 'VALIDATION_FAILED'),
  get('an exponent limit', '/api/v1/timers?limit=1e2', 'VALIDATION_FAILED'),
  get('a hex limit', '/api/v1/timers?limit=0x10', 'VALIDATION_FAILED'),
  get('a NaN limit', '/api/v1/timers?limit=NaN', 'VALIDATION_FAILED'),
  get('an Infinity limit', '/api/v1/timers?limit=Infinity', 'VALIDATION_FAILED'),
  get('a huge limit', '/api/v1/timers?limit=99999999999999999999', 'VALIDATION_FAILED'),
  get('a padded limit', `/api/v1/timers?limit=${encodeURIComponent(' 5')}`, 'VALIDATION_FAILED'),
  get('a hex preview count', '/api/v1/timers/1/preview?count=0x10', 'VALIDATION_FAILED'),
  // wrong types
  native('a numeric app', body({ app: 123 }), 'INVALID_APP'),
  native('a null name', body({ name: null }), 'INVALID_NAME'),
  native('a name array', body({ name: ['a'] }), 'INVALID_NAME'),
  native('a callback given as a string', body({ callback: PUBLIC_URL }), 'VALIDATION_FAILED'),
  native('retry as an array', body({ retry: [] }), 'INVALID_RETRY'),
  native('a boolean status', body({ status: true }), 'VALIDATION_FAILED'),
  native('an object misfire policy', body({ misfirePolicy: {} }), 'INVALID_MISFIRE_POLICY'),
  native('a timeout as a string', body({}, { timeoutMs: '5000' }), 'VALIDATION_FAILED'),
  native('a __proto__ key', rawWith('name', '"x", "__proto__": {"admin": true}'), 'VALIDATION_FAILED'),
  native('a constructor key', body({ constructor: { prototype: { admin: true } } }), 'VALIDATION_FAILED'),
  // ids and path traversal
  get('an id with a statement', '/api/v1/timers/1;DROP', 'VALIDATION_FAILED'),
  get('an id with a tautology', `/api/v1/timers/${encodeURIComponent('1 OR 1=1')}`, 'VALIDATION_FAILED'),
  get('a negative id', '/api/v1/timers/-1', 'VALIDATION_FAILED'),
  get('a zero id', '/api/v1/timers/0', 'VALIDATION_FAILED'),
  get('an exponent id', '/api/v1/timers/1e3', 'VALIDATION_FAILED'),
  get('a hex id', '/api/v1/timers/0x10', 'VALIDATION_FAILED'),
  get('an id beyond 2^53', '/api/v1/timers/99999999999999999999', 'VALIDATION_FAILED'),
  get('../1', '/api/v1/timers/../1', 'NOT_FOUND', 404),
  get('%2e%2e/1', '/api/v1/timers/%2e%2e/1', 'NOT_FOUND', 404),
  get('..%2f1 as an id', '/api/v1/timers/..%2f1', 'VALIDATION_FAILED'),
  get('%2e%2e%2f1 as an id', '/api/v1/timers/%2e%2e%2f1', 'VALIDATION_FAILED'),
  get('..%5c1 as an id', '/api/v1/timers/..%5c1', 'VALIDATION_FAILED'),
  get('an encoded NUL as an id', '/api/v1/timers/1%00', 'VALIDATION_FAILED'),
  // apps
  {
    what: 'a traversal app name',
    method: 'POST',
    path: '/api/v1/apps',
    body: { app: '../admin' },
    status: 400,
    code: 'INVALID_APP',
  },
  {
    what: 'an SQL app name',
    method: 'POST',
    path: '/api/v1/apps',
    body: { app: "x'; DROP TABLE apps; --" },
    status: 400,
    code: 'INVALID_APP',
  },
  get('a traversal app path', '/api/v1/apps/..%2fadmin', 'INVALID_APP'),
  {
    what: 'an overflowing grace',
    method: 'POST',
    path: '/api/v1/apps/sweep/rotate',
    body: '{"rotate": "key", "graceSeconds": 1e309}',
    status: 400,
    code: 'VALIDATION_FAILED',
  },
];

/** On the compatible routes, as in the Go original: 400 when the request does not bind, else HTTP 200 with code -1. */
interface CompatHostile {
  what: string;
  method: string;
  path: string;
  body?: unknown;
  code: string;
  status: 200 | 400 | 403;
}

const goBody = (overrides: Record<string, unknown> = {}, param: Record<string, unknown> = {}) => ({
  app: 'sweep',
  name: 'go',
  cron: '0 */5 * * * *',
  notifyHTTPParam: { method: 'POST', url: PUBLIC_URL, ...param },
  ...overrides,
});

const COMPAT: CompatHostile[] = [
  ...['__proto__', 'toString', 'constructor'].map(
    (cron): CompatHostile => ({
      what: `the cron ${cron}`,
      method: 'POST',
      path: '/api/timer/v1/def',
      body: goBody({ cron }),
      code: 'INVALID_CRON',
      status: 200,
    }),
  ),
  {
    what: 'SQL in app',
    method: 'POST',
    path: '/api/timer/v1/def',
    body: goBody({ app: "x' OR '1'='1" }),
    code: 'INVALID_APP',
    status: 200,
  },
  {
    what: 'CRLF in a header',
    method: 'POST',
    path: '/api/timer/v1/def',
    body: goBody({}, { header: { 'x-a': ['b\r\nc: d'] } }),
    code: 'INVALID_HEADERS',
    status: 200,
  },
  {
    what: 'a header list of objects',
    method: 'POST',
    path: '/api/timer/v1/def',
    body: goBody({}, { header: { 'x-a': [{}] } }),
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a RTL override in the name',
    method: 'POST',
    path: '/api/timer/v1/def',
    body: goBody({ name: 'a\u202Eb' }),
    code: 'INVALID_NAME',
    status: 200,
  },
  {
    what: 'deep nesting',
    method: 'POST',
    path: '/api/timer/v1/def',
    body: nested(100_000),
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'an id with a statement',
    method: 'GET',
    path: '/api/timer/v1/def?id=1;DROP',
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'an id tautology',
    method: 'GET',
    path: `/api/timer/v1/def?id=${encodeURIComponent('1 OR 1=1')}`,
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a hex id',
    method: 'GET',
    path: '/api/timer/v1/def?id=0x1',
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'an id array in the body',
    method: 'POST',
    path: '/api/timer/v1/enable',
    body: { id: [1] },
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a boolean id',
    method: 'POST',
    path: '/api/timer/v1/unable',
    body: { id: true },
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a negative id',
    method: 'POST',
    path: '/api/timer/v1/enable',
    body: { id: -1 },
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a fractional id',
    method: 'POST',
    path: '/api/timer/v1/enable',
    body: { id: 1.5 },
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'an SQL id in a delete body',
    method: 'DELETE',
    path: '/api/timer/v1/def',
    body: { id: '1; DROP TABLE timers' },
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a hex page size',
    method: 'GET',
    path: '/api/timer/v1/defs?app=sweep&pageSize=0x10',
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a huge page index',
    method: 'GET',
    path: '/api/timer/v1/defs?app=sweep&pageIndex=1e99',
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'a traversal timer id',
    method: 'GET',
    path: '/api/task/v1/records?timerID=../1',
    code: 'VALIDATION_FAILED',
    status: 400,
  },
  {
    what: 'SQL in app of defs',
    method: 'GET',
    path: `/api/timer/v1/defs?app=${encodeURIComponent("' OR 1=1 --")}`,
    code: 'FORBIDDEN',
    status: 403,
  },
];

async function rowCounts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['timers', 'tasks', 'apps']) {
    const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
    out[table] = Number((rows as Array<{ n: number }>)[0]!.n);
  }
  return out;
}

describe('the hostile-input sweep', () => {
  it('answers every hostile input with its error code (a 4xx; code -1 on the compatible routes), stores nothing, and stays healthy', async () => {
    const before = await rowCounts();
    const existing = (await call(app, 'GET', `/api/v1/timers/${existingId}`, undefined, key)).body;
    const failures: string[] = [];

    for (const h of HOSTILE) {
      // Timer routes with the app key; app administration with the admin token.
      const headers = h.path.startsWith('/api/v1/apps') ? ADMIN : key;
      const res = await call(app, h.method, h.path, h.body, headers);
      if (res.status !== h.status || res.body?.error?.code !== h.code) {
        failures.push(`${h.what}: got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    for (const h of COMPAT) {
      const res = await call(app, h.method, h.path, h.body, key);
      const ok =
        res.status === h.status &&
        res.body?.code === -1 &&
        typeof res.body?.msg === 'string' &&
        res.body.msg.startsWith(`${h.code}: `);
      if (!ok) failures.push(`compat ${h.what}: got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    // The same id-shaped attacks on changes.
    for (const path of ['/api/v1/timers/1;DROP', '/api/v1/timers/..%2f1']) {
      for (const method of ['PATCH', 'DELETE']) {
        const res = await call(app, method, path, method === 'PATCH' ? { name: 'x' } : undefined, key);
        if (res.status !== 400) failures.push(`${method} ${path}: got ${res.status}`);
      }
    }

    expect(failures).toEqual([]);
    expect(await rowCounts()).toEqual(before);
    expect((await call(app, 'GET', `/api/v1/timers/${existingId}`, undefined, key)).body).toEqual(existing);

    expect((await call(app, 'GET', '/healthz')).status).toBe(200);
    expect((await call(app, 'GET', '/readyz')).status).toBe(200);
    const fine = await call(app, 'POST', '/api/v1/timers', body({ name: 'after-the-sweep' }), key);
    expect(fine.status).toBe(201);
  });
});

describe('names an object already has', () => {
  it('finds a timer by the label toString, and has no docs asset of that name', async () => {
    const labelled = await call(app, 'POST', '/api/v1/timers', body({ labels: { toString: 'x' } }), key);
    expect(labelled.status, JSON.stringify(labelled.body)).toBe(201);
    const found = await call(app, 'GET', '/api/v1/timers?app=sweep&label=toString:x', undefined, key);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.items.map((t: { id: number }) => t.id)).toEqual([labelled.body.id]);
    for (const name of ['toString', 'constructor', '__proto__']) {
      expect((await app.request(`/docs/assets/${name}`)).status).toBe(404);
    }
  });
});

describe('text that is only text', () => {
  it.each([
    ["x'; DROP TABLE timers; --", 'SQL'],
    ['Robert"); DELETE FROM apps; --', 'SQL with quotes'],
    ['👩‍👩‍👧 family run', 'an emoji joined with ZWJ'],
    ['🏴󠁧󠁢󠁳󠁣󠁴󠁿 flag', 'a tag-sequence flag'],
    ['עברית נייטלי', 'right-to-left script (no override)'],
    ['café ☕ 夜間', 'mixed scripts'],
  ])('stores the name %j (%s) verbatim, and finds it by that name', async (name) => {
    const res = await call(app, 'POST', '/api/v1/timers', body({ name }), key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.name).toBe(name);
    const found = await call(
      app,
      'GET',
      `/api/timer/v1/defsByName?app=sweep&name=${encodeURIComponent(name)}`,
      undefined,
      key,
    );
    expect(found.body.data.map((t: { id: number }) => t.id)).toEqual([res.body.id]);
    const [tables] = await stores.database.pool.query("SHOW TABLES LIKE 'timers'");
    expect((tables as unknown[]).length).toBe(1);
  });
});
