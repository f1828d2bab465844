import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { prepareCall } from '../../../src/callback/callback-request.js';
import { HttpCaller } from '../../../src/callback/http-caller.js';
import { isRetryable } from '../../../src/callback/retry-policy.js';
import { TargetGuard } from '../../../src/callback/target-guard.js';
import { createCore } from '../../../src/core.js';
import { blockedAddress } from '../../../src/domain/ip-ranges.js';
import { createLogger } from '../../../src/observability/logger.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { Sink } from '../../helpers/sink.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';
import { testTimer } from '../../helpers/timers.js';

/**
 * The SSRF guard, on by default: private targets are refused when a
 * timer is stored, and again on every connection on the address actually resolved;
 * CALLBACK_ALLOW_HOSTS exempts host names and addresses; redirects are never followed.
 */

let stores: TestStores;
let blocking: App;
let allowingLocalhost: App;
let allowingLoopbackAddress: App;
let sink: Sink;

beforeAll(async () => {
  // Nothing said about the guard: the default. Nothing allowed (the test helpers allow 127.0.0.1).
  stores = await createTestStores('ssrf', { CALLBACK_ALLOW_HOSTS: '' });
  expect(stores.config.callbackBlockPrivate).toBe(true);
  blocking = createTestApp(createTestCore(stores));
  const allowing = (hosts: string[]) =>
    createTestApp(createTestCore({ ...stores, config: { ...stores.config, callbackAllowHosts: hosts } }));
  allowingLocalhost = allowing(['localhost']);
  allowingLoopbackAddress = allowing(['127.0.0.1']);
  sink = await new Sink().start();
});
afterAll(async () => {
  await sink.stop();
  await stores.cleanup();
});

async function timerRows(): Promise<number> {
  const [rows] = await stores.database.pool.query('SELECT COUNT(*) AS n FROM timers');
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const withUrl = (url: string) =>
  timerBody({ callback: { ...(timerBody().callback as Record<string, unknown>), url } });

/** One attempt of a run calling `url`, as the executor sends it. */
const send = async (caller: HttpCaller, url: string) =>
  caller.send(
    prepareCall(
      testTimer({
        id: 1,
        app: 'ssrf',
        callback: { url, method: 'POST', headers: {}, body: 'x', timeoutMs: 2000 },
        retry: { maxAttempts: 3, backoffMs: 10 },
      }),
      '1_1000',
      1000,
      1,
    ),
  );

describe('at create and update time', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost:8080/hook',
    'http://LOCALHOST./hook',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://172.16.5.4/hook',
    'http://192.168.0.10/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://0.0.0.0/hook',
    'http://0x7f.0.0.1/hook',
    'http://2130706433/hook',
    'http://017700000001/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[64:ff9b::a9fe:a9fe]/hook',
    'http://[64:ff9b:1::a00:1]/hook',
    'http://[2002:7f00:1::1]/hook',
    'http://[2002:a9fe:a9fe::1]/hook',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    'http://[::]/hook',
    'http://224.0.0.1/hook',
    'http://[ff02::1]/hook',
    'http://192.0.2.1/hook',
    'http://[2001:db8::1]/hook',
  ])('refuses %s with 400 TARGET_BLOCKED and stores nothing', async (url) => {
    const before = await timerRows();
    const res = await call(blocking, 'POST', '/api/v1/timers', withUrl(url));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('TARGET_BLOCKED');
    expect(res.body.error.message).toContain('CALLBACK_ALLOW_HOSTS');
    expect(await timerRows()).toBe(before);
  });

  it('accepts a public address, and a name that does not resolve yet (checked again on every call)', async () => {
    expect(
      (await call(blocking, 'POST', '/api/v1/timers', withUrl('http://93.184.215.14/hook'))).status,
    ).toBe(201);
    expect(
      (await call(blocking, 'POST', '/api/v1/timers', withUrl('https://hooks.example.invalid/x'))).status,
    ).toBe(201);
  });

  it('refuses a PATCH that points a timer at a private address', async () => {
    const t = (await call(blocking, 'POST', '/api/v1/timers', withUrl('http://93.184.215.14/hook'))).body;
    const res = await call(blocking, 'PATCH', `/api/v1/timers/${t.id}`, {
      callback: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('TARGET_BLOCKED');
    expect((await call(blocking, 'GET', `/api/v1/timers/${t.id}`)).body.callback.url).toBe(
      'http://93.184.215.14/hook',
    );
  });

  it('refuses a failure-notification URL at a private address, on a timer and on an app', async () => {
    const res = await call(blocking, 'POST', '/api/v1/timers', {
      ...withUrl('http://93.184.215.14/hook'),
      notify: { url: 'http://10.0.0.7/alerts', on: ['failed'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('TARGET_BLOCKED');
    const app = await call(blocking, 'PATCH', '/api/v1/apps/billing', {
      notify: { url: 'http://[::ffff:169.254.169.254]/alerts', on: ['failed'] },
    });
    expect(app.status).toBe(400);
    expect(app.body.error.code).toBe('TARGET_BLOCKED');
  });

  it('refuses the compatible create in its envelope', async () => {
    const res = await call(blocking, 'POST', '/api/timer/v1/def', {
      app: 'legacy',
      name: 'metadata',
      cron: '0 0 * * * *',
      notifyHTTPParam: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: -1, msg: expect.stringMatching(/^TARGET_BLOCKED: /) });
  });

  it('lets CALLBACK_ALLOW_HOSTS exempt a host name, and only that name', async () => {
    expect((await call(allowingLocalhost, 'POST', '/api/v1/timers', withUrl(sink.url()))).status).toBe(400);
    const byName = `http://localhost:${sink.port}/hook`;
    expect((await call(allowingLocalhost, 'POST', '/api/v1/timers', withUrl(byName))).status).toBe(201);
  });

  it('lets CALLBACK_ALLOW_HOSTS exempt an IP address (the local receiver of the quick start), and only that one', async () => {
    const app = allowingLoopbackAddress;
    expect((await call(app, 'POST', '/api/v1/timers', withUrl(sink.url()))).status).toBe(201);
    expect(
      (await call(app, 'POST', '/api/v1/timers', withUrl('http://[::ffff:127.0.0.1]/hook'))).status,
    ).toBe(201);
    for (const other of ['http://127.0.0.2/hook', 'http://[::1]/hook', 'http://10.0.0.1/hook']) {
      const res = await call(app, 'POST', '/api/v1/timers', withUrl(other));
      expect(res.status, other).toBe(400);
      expect(res.body.error.code).toBe('TARGET_BLOCKED');
    }
  });
});

describe('CALLBACK_ALLOW_HOSTS with a port', () => {
  it('opens that port of a listed address and no other, at create time and at call time', async () => {
    const listed = `127.0.0.1:${sink.port}`;
    const app = createTestApp(
      createTestCore({ ...stores, config: { ...stores.config, callbackAllowHosts: [listed] } }),
    );
    expect((await call(app, 'POST', '/api/v1/timers', withUrl(sink.url('/hook')))).status).toBe(201);
    for (const other of [
      'http://127.0.0.1:8081/metrics',
      'http://127.0.0.1/hook',
      `http://127.0.0.2:${sink.port}/`,
    ]) {
      const res = await call(app, 'POST', '/api/v1/timers', withUrl(other));
      expect(res.status, other).toBe(400);
      expect(res.body.error.code).toBe('TARGET_BLOCKED');
    }
    const metrics = await call(app, 'POST', '/api/v1/timers', withUrl('http://127.0.0.1:8081/metrics'));
    expect(metrics.body.error.message).toContain(`listed in CALLBACK_ALLOW_HOSTS only at port ${sink.port}`);
    // The way out is this port listed too, not the host again.
    expect(metrics.body.error.message).toMatch(
      /; add 127\.0\.0\.1:8081 to CALLBACK_ALLOW_HOSTS to call it anyway$/,
    );
    expect(metrics.body.error.details).toEqual([
      { path: 'callback.url', message: expect.stringMatching(/only at port .*add 127\.0\.0\.1:8081/) },
    ]);

    const guard = new TargetGuard({ blockPrivate: true, allowHosts: [listed] });
    const caller = new HttpCaller(4, { guard });
    try {
      const delivered = sink.deliveries.length;
      expect(await send(caller, sink.url('/hook'))).toMatchObject({ kind: 'response', status: 200 });
      const refused = await send(caller, 'http://127.0.0.1:8081/metrics');
      expect(refused.kind === 'error' && refused.error).toMatch(/^TARGET_BLOCKED: .*only at port/);
      expect(sink.deliveries.length).toBe(delivered + 1);
    } finally {
      await caller.close();
    }
  });

  it('opens a listed name at its port only, and an address with a port only when the URL names it', async () => {
    const guard = new TargetGuard({
      blockPrivate: true,
      allowHosts: [`localhost:${sink.port}`, `127.0.0.1:${sink.port}`],
    });
    expect(await guard.urlProblem(`http://localhost:${sink.port}/hook`)).toBeNull();
    expect(await guard.urlProblem('http://localhost:8081/metrics')).toMatch(/only at port/);
    // Another name for the same address: its port is not known when the connection resolves it.
    expect(await guard.urlProblem(`http://${hostname().toLowerCase()}:${sink.port}/hook`)).toMatch(
      /resolves to a non-public address/,
    );
    const caller = new HttpCaller(4, { guard });
    try {
      expect(await send(caller, `http://localhost:${sink.port}/hook`)).toMatchObject({ kind: 'response' });
      const other = await send(caller, 'http://localhost:8081/metrics');
      expect(other.kind === 'error' && other.error).toMatch(/^TARGET_BLOCKED: .*only at port/);
    } finally {
      await caller.close();
    }
  });

  it('still opens every port of a bare host, as documented', async () => {
    const guard = new TargetGuard({ blockPrivate: true, allowHosts: ['127.0.0.1'] });
    for (const url of [sink.url('/hook'), 'http://127.0.0.1:8081/metrics', 'http://127.0.0.1/']) {
      expect(await guard.urlProblem(url), url).toBeNull();
    }
  });
});

describe('every path that stores a URL checks it', () => {
  const METADATA = 'http://169.254.169.254/latest/meta-data/';
  const PUBLIC = 'http://93.184.215.14/hook';
  const notifyAt = (url: string) => ({ url, on: ['failed'] });
  /** A timer body without its app (PUT and apply name it in the path). */
  const definition = (name: string, overrides: Record<string, unknown> = {}) => {
    const { app: _, ...body } = { ...withUrl(PUBLIC), ...overrides };
    return { ...body, name };
  };
  const callbackAt = (url: string) => ({ callback: { ...(withUrl(url).callback as object) } });

  /** Each path, sending one timer whose callback or notify is `bad` beside one that is fine. */
  const PATHS: Record<
    string,
    (field: 'callback' | 'notify', existing: number) => Promise<{ status: number; body: any }>
  > = {
    'POST /timers/batch': (field) => {
      const fine = timerBody({ ...withUrl(PUBLIC), notify: notifyAt(PUBLIC) });
      const bad =
        field === 'callback'
          ? timerBody({ ...withUrl(METADATA), notify: notifyAt(PUBLIC) })
          : // The same schedule and callback as the fine one: only notify tells them apart.
            { ...fine, name: `${fine.name}-2`, notify: notifyAt(METADATA) };
      return call(blocking, 'POST', '/api/v1/timers/batch', { timers: [fine, bad] });
    },
    'POST /apps/{app}/apply': (field) =>
      call(blocking, 'POST', '/api/v1/apps/billing/apply', {
        timers: [
          definition('fine', { notify: notifyAt(PUBLIC) }),
          definition(
            'bad',
            field === 'callback'
              ? { ...callbackAt(METADATA), notify: notifyAt(PUBLIC) }
              : { notify: notifyAt(METADATA) },
          ),
        ],
      }),
    'PUT /apps/{app}/timers/{name}': (field) =>
      call(
        blocking,
        'PUT',
        '/api/v1/apps/billing/timers/put-target',
        definition(
          'put-target',
          field === 'callback' ? callbackAt(METADATA) : { notify: notifyAt(METADATA) },
        ),
      ),
    'PATCH /timers/{id}': (field, existing) =>
      call(
        blocking,
        'PATCH',
        `/api/v1/timers/${existing}`,
        field === 'callback' ? { callback: { url: METADATA } } : { notify: notifyAt(METADATA) },
      ),
  };

  for (const field of ['callback', 'notify'] as const) {
    it.each(Object.keys(PATHS))(
      `refuses a ${field} URL at the metadata address through %s, storing nothing`,
      async (path) => {
        const existing = (await call(blocking, 'POST', '/api/v1/timers', withUrl(PUBLIC))).body;
        const before = await timerRows();
        const res = await PATHS[path]!(field, existing.id);
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.error.code).toBe('TARGET_BLOCKED');
        expect(res.body.error.message).toContain(`${field}.url`);
        expect(await timerRows()).toBe(before);
        const stored = (await call(blocking, 'GET', `/api/v1/timers/${existing.id}`)).body;
        expect(stored.callback.url).toBe(PUBLIC);
        expect(stored.notify).toBeNull();
      },
    );
  }
});

describe('at call time', () => {
  it('refuses a host name that resolves to a private address before any connection, as a final failure', async () => {
    const guard = new TargetGuard({ blockPrivate: true, allowHosts: [] });
    const caller = new HttpCaller(4, { guard });
    try {
      const before = sink.connections;
      const result = await send(caller, `http://localhost:${sink.port}/hook`);
      expect(result.kind).toBe('error');
      expect(result.kind === 'error' && result.error).toBe(
        'TARGET_BLOCKED: callback host localhost resolves to a non-public address',
      );
      expect(isRetryable(result)).toBe(false);
      const literal = await send(caller, `http://127.0.0.1:${sink.port}/hook`);
      expect(literal.kind === 'error' && literal.error).toMatch(/^TARGET_BLOCKED: .*loopback/);
      expect(isRetryable(literal)).toBe(false);
      expect(sink.connections).toBe(before);
    } finally {
      await caller.close();
    }
  });

  it('calls an allowlisted host name, and any target with the guard off', async () => {
    const allowing = new HttpCaller(4, {
      guard: new TargetGuard({ blockPrivate: true, allowHosts: ['localhost'] }),
    });
    const open = new HttpCaller(4, { guard: new TargetGuard({ blockPrivate: false, allowHosts: [] }) });
    try {
      const delivered = sink.deliveries.length;
      expect(await send(allowing, `http://localhost:${sink.port}/hook`)).toMatchObject({
        kind: 'response',
        status: 200,
      });
      expect(await send(open, sink.url())).toMatchObject({ kind: 'response', status: 200 });
      expect(sink.deliveries.length).toBe(delivered + 2);
    } finally {
      await allowing.close();
      await open.close();
    }
  });

  it('records a redirect as the final answer and never follows it', async () => {
    const caller = new HttpCaller(4);
    sink.respond = (d) =>
      d.path === '/redirect'
        ? { status: 302, headers: { location: sink.url('/followed') }, body: 'moved' }
        : { status: 200, body: 'ok' };
    try {
      const before = sink.deliveries.length;
      const result = await send(caller, sink.url('/redirect'));
      expect(result).toMatchObject({ kind: 'response', status: 302 });
      expect(isRetryable(result)).toBe(false);
      expect(sink.deliveries.slice(before).map((d) => d.path)).toEqual(['/redirect']);
    } finally {
      sink.respond = () => ({ status: 200, body: 'ok' });
      await caller.close();
    }
  });

  it('refuses through the connect-time lookup, which also serves connections with the guard', async () => {
    const guard = new TargetGuard({ blockPrivate: true, allowHosts: [] });
    const err = await new Promise<Error | null>((resolve) =>
      guard.lookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(err?.message).toBe('callback host localhost resolves to a non-public address');
    expect((err as Error & { code?: string }).code).toBe('TARGET_BLOCKED');
  });
});

describe('no oracle of the network around xtimer', () => {
  it('tells an app key only that a name resolves to a non-public address, on every path; the log has the address', async () => {
    // This machine's own name: /etc/hosts or DNS give it a loopback or private address.
    const host = hostname().toLowerCase();
    const addresses = await lookup(host, { all: true });
    const inside = addresses.map((a) => blockedAddress(a.address)).find((why) => why !== null);
    expect(inside, `${host} resolves to ${JSON.stringify(addresses)}`).toBeDefined();
    const lines: string[] = [];
    const logger = createLogger('info', {}, { write: (line: string) => lines.push(line) });
    const core = createCore(stores.config, logger, stores.database, stores.redis);
    const api = createTestApp(core);
    const key = bearer((await call(api, 'POST', '/api/v1/apps', { app: 'prober' })).body.apiKey);
    const inner = `http://${host}:8080/admin`;
    const answers = [
      await call(api, 'POST', '/api/v1/timers', { ...withUrl(inner), app: 'prober' }, key),
      await call(
        api,
        'POST',
        '/api/v1/timers',
        { ...withUrl('http://93.184.215.14/hook'), app: 'prober', notify: { url: inner, on: ['failed'] } },
        key,
      ),
      await call(
        api,
        'POST',
        '/api/v1/apps/prober/apply',
        { timers: [{ ...withUrl(inner), app: undefined }], dryRun: true },
        key,
      ),
      await call(api, 'PATCH', '/api/v1/apps/prober', { notify: { url: inner, on: ['failed'] } }, key),
    ];
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('TARGET_BLOCKED');
      expect(res.body.error.message).toContain(`callback host ${host} resolves to a non-public address;`);
      for (const a of addresses) expect(res.body.error.message).not.toContain(a.address);
      expect(res.body.error.message).not.toMatch(/loopback|private|link-local/);
    }
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.host === host);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0].resolved).toBe(inside);
    // At call time too: the run's error says as little, the log as much.
    const err = await new Promise<Error | null>((resolve) =>
      core.guard.lookup(host, { all: true }, (e) => resolve(e)),
    );
    expect(err?.message).toBe(`callback host ${host} resolves to a non-public address`);
  });
});
