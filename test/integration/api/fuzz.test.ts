import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * A fuzz test: property-based hostile requests (fast-check) to every route in
 * /openapi.json, the xtimer-compatible routes and the timers page — wrong types, huge
 * numbers, bad unicode, NULs, path tricks, 10k-character strings, broken JSON. The
 * properties: no answer is a 5xx, and an answer of 4xx changes nothing (timers, apps
 * and runs compared row by row before and after). FUZZ_RUNS sets the runs per route.
 */

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 40);
const APP = 'fuzz';

let stores: TestStores;
let app: App;
/** A timer of the fuzzed app that requests may name; re-created when a request deletes it. */
let seedId = 0;
/** The dashboard's CSRF token and its cookie, as a page gave them: its forms carry both. */
let csrf = '';
let csrfCookie = '';

beforeAll(async () => {
  stores = await createTestStores('fuzz');
  app = createTestApp(createTestCore(stores));
  expect((await call(app, 'POST', '/api/v1/apps', { app: APP })).status).toBe(201);
  const page = await app.request('/dashboard/timers');
  csrfCookie = /xtimer_csrf=[A-Za-z0-9_-]+/.exec(page.headers.get('set-cookie') ?? '')![0];
  csrf = csrfCookie.split('=')[1]!;
});
afterAll(async () => {
  await stores.cleanup();
});

async function ensureSeedTimer(): Promise<void> {
  if (seedId > 0 && (await call(app, 'GET', `/api/v1/timers/${seedId}`)).status === 200) return;
  const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: APP, status: 'active' }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  seedId = res.body.id;
}

/** Everything a request could change, row by row. */
async function snapshot(): Promise<string> {
  const [timers] = await stores.database.pool.query(
    'SELECT id, app, name, cron, timezone, callback_url, callback_method, callback_headers, callback_body, status, version, updated_at FROM timers ORDER BY id',
  );
  const [apps] = await stores.database.pool.query('SELECT * FROM apps ORDER BY name');
  const [tasks] = await stores.database.pool.query(
    'SELECT COUNT(*) AS n, COALESCE(SUM(CRC32(CONCAT_WS(",", timer_id, run_at, status))), 0) AS digest FROM tasks',
  );
  const [audit] = await stores.database.pool.query('SELECT COUNT(*) AS n FROM audit_log');
  return JSON.stringify({ timers, apps, tasks, audit });
}

// ---- hostile values -------------------------------------------------------------------

const TRICKS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eevil',
  '\ufeff',
  '\u200b',
  '😀👩‍👩‍👧',
  '１２３',
  '../../etc/passwd',
  '..\\..\\windows',
  '%2e%2e%2f',
  '%00',
  '\r\nX-Injected: 1',
  "' OR '1'='1' --",
  '"; DROP TABLE timers; --',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell probe, as text
  '${jndi:ldap://x/a}',
  '__proto__',
  'constructor',
  'http://169.254.169.254/latest/meta-data/',
  'http://user:pass@127.0.0.1:9/x',
  'http://[::ffff:127.0.0.1]/x',
  'http://[64:ff9b::a9fe:a9fe]/x',
  'javascript:alert(1)',
  '* * * * * * * *',
  '0 0 * * * *'.padEnd(300, ' '),
  'Etc/../../zoneinfo',
];

const longString = fc
  .tuple(fc.constantFrom('x', 'é', '😀', '\u0000', ' ', ',', '['), fc.constantFrom(10_000, 70_000))
  .map(([c, n]) => c.repeat(Math.ceil(n / c.length)));

const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TRICKS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  longString,
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1.5, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 1e21, 1e308, -1e308, 5e-324),
  fc.integer(),
  fc.double(),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }) },
);

/** Any generated value as text (fast-check's objects may lack toString). */
const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

/** `s` with each unpaired surrogate replaced (encodeURIComponent throws on them). */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** Text for a URL: what encodeURIComponent makes of it, or raw and broken escapes. */
const urlPart = (seed: () => string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => seed()) },
    { weight: 3, arbitrary: hostileValue.map((v) => encodeURIComponent(wellFormed(text(v)))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%ff',
        '%c0%ae%c0%ae',
        '%ed%a0%80',
        '..',
        '%2e%2e',
        '..%2f..%2f',
        '%2e%2e%5c',
        '1%00',
        '1;DROP',
        '1%0d%0aX:1',
        '0x10',
        '1e3',
        '-1',
        '99999999999999999999',
        '%E2%80%AE',
      ),
    },
  );

// ---- routes --------------------------------------------------------------------------

interface Route {
  method: string;
  /** With {id} and {app} placeholders. */
  path: string;
  query: string[];
  /** A valid body to mutate; absent = the route takes none (it is sent one anyway, sometimes). */
  body?: () => Record<string, unknown>;
  form?: boolean;
}

/** The dashboard's create and edit form, filled in. */
const TIMER_FORM = {
  cron: '0 */5 * * * *',
  timezone: 'Europe/Berlin',
  callbackUrl: 'http://127.0.0.1:9/form',
  callbackMethod: 'PUT',
  callbackHeaders: 'x-a: 1\nauthorization: ***',
  callbackBody: '{}',
  callbackTimeoutMs: '1000',
  retryMaxAttempts: '2',
  retryBackoffMs: '10',
  overlapPolicy: 'skip',
  notifyUrl: 'http://127.0.0.1:9/notify',
  notifyOn: 'failed',
  labels: 'team: fuzz\nenv: test',
  description: 'fuzzed',
  active: 'on',
};

/** A create body as the app-scoped routes take it: the app is the path's. */
function withoutApp({ app: _app, ...rest }: Record<string, unknown>): Record<string, unknown> {
  return rest;
}

const VALID_BODIES: Record<string, () => Record<string, unknown>> = {
  'POST /api/v1/timers': () => timerBody({ app: APP, name: `f-${Math.random().toString(36).slice(2)}` }),
  'POST /api/v1/timers/batch': () => ({
    timers: [0, 1].map(() => timerBody({ app: APP, name: `b-${Math.random().toString(36).slice(2)}` })),
  }),
  'PATCH /api/v1/timers/{id}': () => ({
    name: `p-${Math.random().toString(36).slice(2)}`,
    cron: '0 */5 * * * *',
    timezone: 'Europe/Berlin',
    callback: {
      url: 'http://127.0.0.1:9/patched',
      method: 'PUT',
      headers: { 'x-k': 'v' },
      body: '{}',
      timeoutMs: 1000,
    },
    retry: { maxAttempts: 2, backoffMs: 10 },
    misfirePolicy: 'skip',
    misfireThresholdMs: 1000,
    endAt: '2099-01-01T00:00:00Z',
    maxRuns: 5,
    overlapPolicy: 'buffer_one',
    notify: { url: 'http://127.0.0.1:9/notify', on: ['failed'] },
  }),
  'PUT /api/v1/apps/{app}/timers/{name}': () => withoutApp(timerBody({ name: undefined })),
  'POST /api/v1/apps/{app}/apply': () => ({
    timers: [withoutApp(timerBody({ name: `a-${Math.random().toString(36).slice(2)}` }))],
    prune: false,
    dryRun: Math.random() < 0.5,
  }),
  'PATCH /api/v1/apps/{app}': () => ({ notify: { url: 'http://127.0.0.1:9/notify', on: ['missed'] } }),
  'POST /api/v1/apps': () => ({ app: `app${Math.random().toString(36).slice(2, 8)}` }),
  'POST /api/v1/apps/{app}/rotate': () => ({ rotate: 'key', graceSeconds: 60 }),
  'PUT /api/v1/apps/{app}/calendars/{name}': () => ({ dates: ['2099-12-25'], description: 'fuzz' }),
  'POST /api/v1/timers/{id}/backfills': () => ({
    from: new Date(Date.now() - 120_000).toISOString(),
    to: new Date(Date.now() - 60_000).toISOString(),
  }),
  'POST /api/v1/timers/{id}/backfills/preview': () => ({
    from: new Date(Date.now() - 120_000).toISOString(),
    to: new Date(Date.now() - 60_000).toISOString(),
  }),
  // Resuming the seed timer, active already, changes nothing the other routes rely on.
  'POST /api/v1/timers/bulk': () => ({ action: 'resume', ids: [seedId] }),
  'POST /api/timer/v1/def': () => ({
    app: APP,
    name: `g-${Math.random().toString(36).slice(2)}`,
    cron: '0 */5 * * * * *',
    notifyHTTPParam: {
      method: 'POST',
      url: 'http://127.0.0.1:9/go',
      header: { 'x-a': ['1', '2'] },
      body: '{}',
    },
  }),
  'PATCH /api/timer/v1/def': () => ({
    id: seedId,
    app: APP,
    name: `gp-${Math.random().toString(36).slice(2)}`,
    cron: '*/5 * * * *',
    status: 1,
    notifyHTTPParam: {
      method: 'PUT',
      url: 'http://127.0.0.1:9/go-patched',
      header: { 'x-b': '1' },
      body: 'x',
    },
  }),
  'POST /api/v1/pause': () => ({ note: 'fuzz' }),
  'POST /api/v1/timers/{id}/disable': () => ({
    note: 'fuzz',
    until: new Date(Date.now() + 3_600_000).toISOString(),
  }),
  'POST /api/v1/apps/{app}/pause': () => ({
    note: 'fuzz',
    until: new Date(Date.now() + 3_600_000).toISOString(),
  }),
  'POST /api/timer/v1/enable': () => ({ id: seedId }),
  'POST /api/timer/v1/unable': () => ({ id: seedId }),
  'DELETE /api/timer/v1/def': () => ({ id: seedId }),
  'POST /dashboard/timers/{id}/enable': () => ({ csrf, back: '/dashboard/timers' }),
  'POST /dashboard/timers/{id}/disable': () => ({ csrf, back: '/dashboard/timers' }),
  'POST /dashboard/timers/{id}/trigger': () => ({ csrf, back: '/dashboard/timers' }),
  'POST /dashboard/timers/{id}/runs/{task}/retry': () => ({ csrf, back: '/dashboard/runs?status=failed' }),
  'POST /dashboard/timers/{id}/delete': () => ({ csrf }),
  'POST /dashboard/timers/new': () => ({
    csrf,
    ...TIMER_FORM,
    app: APP,
    name: `d-${Math.random().toString(36).slice(2)}`,
  }),
  'POST /dashboard/timers/{id}/edit': () => ({
    csrf,
    ...TIMER_FORM,
    name: `e-${Math.random().toString(36).slice(2)}`,
  }),
};

/** The routes outside /openapi.json: the xtimer-compatible API and the timers page. */
const EXTRA_ROUTES: Route[] = [
  { method: 'POST', path: '/api/timer/v1/def', query: [] },
  { method: 'GET', path: '/api/timer/v1/def', query: ['id', 'app'] },
  { method: 'PATCH', path: '/api/timer/v1/def', query: [] },
  { method: 'DELETE', path: '/api/timer/v1/def', query: ['id'] },
  { method: 'GET', path: '/api/timer/v1/defs', query: ['app', 'pageIndex', 'pageSize'] },
  {
    method: 'GET',
    path: '/api/timer/v1/defsByName',
    query: ['app', 'name', 'fuzzyName', 'pageIndex', 'pageSize'],
  },
  { method: 'POST', path: '/api/timer/v1/enable', query: [] },
  { method: 'POST', path: '/api/timer/v1/unable', query: [] },
  { method: 'GET', path: '/api/task/v1/records', query: ['timerID', 'pageIndex', 'pageSize'] },
  {
    method: 'GET',
    path: '/dashboard/timers',
    query: ['app', 'status', 'label', 'q', 'cursor', 'done', 'task'],
  },
  { method: 'GET', path: '/dashboard/timers/{id}', query: ['status', 'cursor', 'at', 'done', 'task'] },
  { method: 'GET', path: '/dashboard/timers/preview', query: ['count', 'cron', 'timezone'] },
  { method: 'GET', path: '/dashboard/timers/new', query: ['app'] },
  { method: 'GET', path: '/dashboard/timers/{id}/edit', query: [] },
  { method: 'GET', path: '/dashboard/timers/{id}/delete', query: [] },
  { method: 'GET', path: '/dashboard/runs', query: ['status', 'app', 'cursor'] },
  { method: 'GET', path: '/dashboard/audit', query: ['app', 'timerId', 'cursor'] },
  { method: 'POST', path: '/dashboard/timers/{id}/enable', query: [], form: true },
  { method: 'POST', path: '/dashboard/timers/{id}/disable', query: [], form: true },
  { method: 'POST', path: '/dashboard/timers/{id}/trigger', query: [], form: true },
  { method: 'POST', path: '/dashboard/timers/{id}/runs/{task}/retry', query: [], form: true },
  { method: 'POST', path: '/dashboard/timers/{id}/delete', query: [], form: true },
  { method: 'POST', path: '/dashboard/timers/new', query: [], form: true },
  { method: 'POST', path: '/dashboard/timers/{id}/edit', query: [], form: true },
].map((r) => withBody(r));

function withBody(route: Route): Route {
  const body = VALID_BODIES[`${route.method} ${route.path}`];
  return body ? { ...route, body } : route;
}

async function openApiRoutes(): Promise<{ routes: Route[]; withoutSeed: string[] }> {
  const doc = (await call(app, 'GET', '/openapi.json')).body as {
    paths: Record<
      string,
      Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: unknown }>
    >;
  };
  const routes: Route[] = [];
  const withoutSeed: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const route = withBody({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      });
      if (op.requestBody !== undefined && route.body === undefined)
        withoutSeed.push(`${route.method} ${path}`);
      routes.push(route);
    }
  }
  return { routes, withoutSeed };
}

// ---- requests -------------------------------------------------------------------------

/** Every place of a JSON object, as key paths. */
function keyPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  const nested = Object.entries(value).flatMap(([k, v]) => keyPaths(v, [...prefix, k]));
  return prefix.length === 0 ? nested : [prefix, ...nested];
}

function mutate(
  body: Record<string, unknown>,
  pick: number,
  how: 'set' | 'delete' | 'add',
  value: unknown,
): unknown {
  const paths = keyPaths(body);
  const path = paths[pick % paths.length] ?? [];
  if (path.length === 0) return value;
  let parent: Record<string, unknown> = body;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = path[path.length - 1]!;
  if (how === 'delete') delete parent[last];
  else if (how === 'add') parent[`${last}${text(value).slice(0, 20)}`] = value;
  else parent[last] = value;
  return body;
}

type Body = string | Uint8Array | undefined;

/** A request body: a valid one mutated, any JSON, broken JSON, bytes that are not UTF-8. */
function bodyFor(route: Route): fc.Arbitrary<Body> {
  const valid = route.body;
  const mutated = valid
    ? fc
        .tuple(
          fc.nat(),
          fc.constantFrom('set', 'set', 'delete', 'add') as fc.Arbitrary<'set' | 'delete' | 'add'>,
          hostileValue,
        )
        .map(([pick, how, value]) => {
          const out = mutate(valid(), pick, how, value);
          return route.form
            ? new URLSearchParams(
                Object.entries(out as Record<string, unknown>).map(([k, v]): [string, string] => [
                  k,
                  wellFormed(text(v)),
                ]),
              ).toString()
            : JSON.stringify(out);
        })
    : fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: mutated },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: hostileString },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"app": "fuzz", ',
        '{"name": "\\ud800"}',
        '{"app":"fuzz","app":"other"}',
        `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
        '{"__proto__": {"admin": true}}',
        '\u0000',
        'null',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.from([0xff, 0xfe, ...b])),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

interface HostileRequest {
  url: string;
  init: RequestInit;
}

function requestFor(route: Route): fc.Arbitrary<HostileRequest> {
  const pathArb = fc
    .tuple(
      urlPart(() => String(seedId)),
      urlPart(() => APP),
      urlPart(() => `${seedId}_${Date.now() - 60_000}`),
      urlPart(() => `u-${Math.random().toString(36).slice(2)}`),
    )
    .map(([id, appName, task, name]) =>
      route.path
        .replace('{id}', id)
        .replace('{app}', appName)
        .replace('{task}', task)
        .replace('{name}', name),
    );
  const queryArb = fc
    .array(
      fc.tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...(route.query.length > 0 ? route.query : ['x'])) },
          { weight: 1, arbitrary: urlPart(() => 'extra') },
        ),
        urlPart(() => (route.query.includes('app') ? APP : String(seedId))),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
  const contentType = route.form
    ? fc.constantFrom('application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain')
    : fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/json') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'text/plain',
            'application/json; charset=latin1',
            'application/x-www-form-urlencoded',
            '',
          ),
        },
      );
  return fc.tuple(pathArb, queryArb, bodyFor(route), contentType).map(([path, query, body, type]) => {
    const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
    // The dashboard's forms are same-origin posts from a page that gave the browser its token.
    if (route.form) {
      headers.origin = 'http://localhost';
      headers.cookie = csrfCookie;
    }
    const sendsBody = body !== undefined && route.method !== 'GET';
    return {
      url: `http://localhost${path}${query ? `?${query}` : ''}`,
      init: { method: route.method, headers, ...(sendsBody ? { body } : {}) },
    };
  });
}

const isCompat = (url: string) => /^\/api\/(timer|task)\/v1\//.test(new URL(url).pathname);

/** The `code` of a compatible answer (0 = success); null if it is not one. */
function compatCode(text: string): unknown {
  try {
    return (JSON.parse(text) as { code?: unknown }).code ?? null;
  } catch {
    return null;
  }
}

/** A request described for a failure message (bodies cut short). */
function describeRequest(r: HostileRequest): string {
  const body = r.init.body;
  const shown =
    typeof body === 'string'
      ? JSON.stringify(body.slice(0, 200))
      : body
        ? `<${(body as Uint8Array).length} bytes>`
        : '';
  return `${r.init.method} ${r.url.slice(0, 300)} ${JSON.stringify(r.init.headers)} ${shown}`;
}

describe('the fuzz test', () => {
  it('answers every hostile request to every route without a 5xx, and changes nothing on a 4xx', {
    timeout: 600_000,
  }, async () => {
    const fromDoc = await openApiRoutes();
    // A route added with a body must get a valid body here, or it is fuzzed shallowly.
    expect(fromDoc.withoutSeed).toEqual([]);
    const routes = [...fromDoc.routes, ...EXTRA_ROUTES];
    const statuses: Record<string, number> = {};
    const failures: string[] = [];

    for (const route of routes) {
      try {
        await fc.assert(
          fc.asyncProperty(requestFor(route), async (hostile) => {
            await ensureSeedTimer();
            const before = await snapshot();
            const res = await app.request(hostile.url, hostile.init);
            const text = await res.text();
            const kind = `${Math.floor(res.status / 100)}xx`;
            statuses[kind] = (statuses[kind] ?? 0) + 1;
            if (res.status >= 500) {
              throw new Error(`${res.status} ${text.slice(0, 300)} ← ${describeRequest(hostile)}`);
            }
            // The compatible routes refuse as the Go xTimer does: often HTTP 200 with code -1.
            const refused = res.status >= 400 || (isCompat(hostile.url) && compatCode(text) !== 0);
            if (refused && (await snapshot()) !== before) {
              throw new Error(
                `${res.status} changed the stores: ${text.slice(0, 300)} ← ${describeRequest(hostile)}`,
              );
            }
          }),
          { numRuns: RUNS_PER_ROUTE, endOnFailure: true },
        );
      } catch (err) {
        const message = (err as Error).message;
        const cause = ((err as Error).cause as Error | undefined)?.message ?? '';
        const counterexample = /Counterexample: .*/.exec(message)?.[0] ?? '';
        failures.push(
          `${route.method} ${route.path}: ${cause || message.split('\n')[0]} ${counterexample.slice(0, 800)}`,
        );
      }
    }

    // The sweep's report: how the answers fell, 5xx must stay 0.
    console.info(`fuzz: ${routes.length} routes × ${RUNS_PER_ROUTE} runs →`, JSON.stringify(statuses));
    expect(failures).toEqual([]);
    expect(statuses['5xx'] ?? 0).toBe(0);
    expect((await call(app, 'GET', '/readyz')).status).toBe(200);
  });
});
