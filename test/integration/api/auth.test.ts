import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Who may call what. The admin token administers everything; an app key sees
 * and changes only its app's timers, tasks and app record (403 otherwise); a missing or
 * unknown token is 401 — on the native and the compatible routes alike.
 */

const ADMIN_TOKEN = 'admin-token-for-the-auth-tests-0123456789';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let stores: TestStores;
let app: App;
/** The clock every service here reads; tests move it instead of sleeping. */
let clock = Date.UTC(2030, 0, 1, 10, 0, 0);

let alphaKey: string;
let betaKey: string;
let alphaTimer: number;
let betaTimer: number;

beforeAll(async () => {
  stores = await createTestStores('auth', {
    XTIMER_ADMIN_TOKEN: ADMIN_TOKEN,
    XTIMER_SECRET_KEY: 'secret-key-for-the-auth-tests-0123456789',
  });
  app = createTestApp(createTestCore(stores, () => clock));
  alphaKey = (await call(app, 'POST', '/api/v1/apps', { app: 'alpha' }, ADMIN)).body.apiKey;
  betaKey = (await call(app, 'POST', '/api/v1/apps', { app: 'beta' }, ADMIN)).body.apiKey;
  alphaTimer = (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'alpha' }), bearer(alphaKey))).body
    .id;
  betaTimer = (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'beta' }), bearer(betaKey))).body
    .id;
});
afterAll(async () => {
  await stores.cleanup();
});

async function count(sql: string): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${sql}`);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

describe('POST /api/v1/apps', () => {
  it('answers a key or secret with Cache-Control: no-store, so no cache or history keeps it', async () => {
    const created = await call(app, 'POST', '/api/v1/apps', { app: 'uncached' }, ADMIN);
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    for (const rotate of ['key', 'secret']) {
      const rotated = await call(app, 'POST', '/api/v1/apps/uncached/rotate', { rotate }, ADMIN);
      expect(rotated.status).toBe(200);
      expect(rotated.headers.get('cache-control'), rotate).toBe('no-store');
    }
  });

  it('creates an app and shows its API key and whsec_ signing secret once; stores neither in clear', async () => {
    const res = await call(app, 'POST', '/api/v1/apps', { app: 'gamma' }, ADMIN);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      app: 'gamma',
      keyId: expect.stringMatching(/^gamma:[0-9a-f]{12}$/),
      apiKey: expect.stringMatching(/^xtk_[A-Za-z0-9_-]{43}$/),
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      previousKeyValidUntil: null,
      previousSecretValidUntil: null,
      notify: null,
    });
    const [rows] = await stores.database.pool.query('SELECT * FROM apps WHERE name = ?', ['gamma']);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(res.body.apiKey);
    expect(stored).not.toContain(res.body.signingSecret.slice('whsec_'.length));
    const got = await call(app, 'GET', '/api/v1/apps/gamma', undefined, ADMIN);
    expect(got.body.apiKey).toBeUndefined();
    expect(got.body.signingSecret).toBeUndefined();
  });

  it('refuses a second app of the same name with 409 APP_EXISTS', async () => {
    const res = await call(app, 'POST', '/api/v1/apps', { app: 'alpha' }, ADMIN);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('APP_EXISTS');
  });

  it('is for the admin only: 403 with an app key, 401 without a token', async () => {
    const before = await count('apps');
    const asApp = await call(app, 'POST', '/api/v1/apps', { app: 'by-app' }, bearer(alphaKey));
    expect(asApp.status).toBe(403);
    expect(asApp.body.error.code).toBe('FORBIDDEN');
    const anonymous = await call(app, 'POST', '/api/v1/apps', { app: 'by-nobody' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await count('apps')).toBe(before);
  });

  it('lists apps for the admin only', async () => {
    const list = await call(app, 'GET', '/api/v1/apps', undefined, ADMIN);
    expect(list.status).toBe(200);
    expect(list.body.items.map((a: { app: string }) => a.app)).toEqual(
      expect.arrayContaining(['alpha', 'beta']),
    );
    expect((await call(app, 'GET', '/api/v1/apps', undefined, bearer(alphaKey))).status).toBe(403);
  });

  it('lets an app read its own record, not another app’s', async () => {
    expect((await call(app, 'GET', '/api/v1/apps/alpha', undefined, bearer(alphaKey))).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/apps/beta', undefined, bearer(alphaKey))).status).toBe(403);
    const missing = await call(app, 'GET', '/api/v1/apps/nope', undefined, ADMIN);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('APP_NOT_FOUND');
  });

  it('lets an app set its own default notify, not another app’s', async () => {
    const notify = { notify: { url: 'https://ops.example.test/xtimer', on: ['failed'] } };
    const own = await call(app, 'PATCH', '/api/v1/apps/alpha', notify, bearer(alphaKey));
    expect(own.status).toBe(200);
    expect(own.body.notify).toEqual(notify.notify);
    expect((await call(app, 'PATCH', '/api/v1/apps/beta', notify, bearer(alphaKey))).status).toBe(403);
    const cleared = await call(app, 'PATCH', '/api/v1/apps/alpha', { notify: null }, ADMIN);
    expect(cleared.body.notify).toBeNull();
  });
});

/** Every native route: [method, path, body?] with `:own` for a timer of alpha's, `:other` for beta's. */
const NATIVE_ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/api/v1/timers/:id'],
  ['PATCH', '/api/v1/timers/:id', { misfireThresholdMs: 1000 }],
  ['POST', '/api/v1/timers/:id/enable'],
  ['POST', '/api/v1/timers/:id/disable'],
  ['GET', '/api/v1/timers/:id/tasks'],
  ['GET', '/api/v1/timers/:id/preview?count=2'],
  ['POST', '/api/v1/timers/:id/trigger'],
];

describe('native routes', () => {
  it.each(NATIVE_ROUTES)('%s %s: 401 without a token or with an unknown one', async (method, path, body) => {
    const p = path.replace(':id', String(alphaTimer));
    for (const headers of [
      {},
      bearer('xtk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
      bearer('nonsense'),
      { authorization: 'Basic YTpi' },
    ]) {
      const res = await call(app, method, p, body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it.each(NATIVE_ROUTES)(
    '%s %s: 403 with another app’s key, 2xx with its own and with the admin token',
    async (method, path, body) => {
      const p = path.replace(':id', String(alphaTimer));
      const denied = await call(app, method, p, body, bearer(betaKey));
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('FORBIDDEN');
      // Which app owns the timer is not told (tenant enumeration); the caller's own app is.
      expect(denied.body.error.message).not.toContain('alpha');
      expect(denied.body.error.message).toContain('beta');
      const ok = method === 'POST' && path.endsWith('/trigger') ? 202 : 200;
      expect((await call(app, method, p, body, bearer(alphaKey))).status).toBe(ok);
      expect((await call(app, method, p, body, ADMIN)).status).toBe(ok);
    },
  );

  it('previews an unsaved schedule for any app’s key, and 401 without one', async () => {
    const path = '/api/v1/preview?cron=0+0+*+*+*&count=1';
    expect((await call(app, 'GET', path)).status).toBe(401);
    expect((await call(app, 'GET', path, undefined, bearer(alphaKey))).status).toBe(200);
  });

  it('answers 404, not 403, for a timer that does not exist', async () => {
    const res = await call(app, 'GET', '/api/v1/timers/999999', undefined, bearer(alphaKey));
    expect(res.status).toBe(404);
  });

  it('refuses to create a timer for another app, and stores nothing', async () => {
    const before = await count('timers');
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'beta' }), bearer(alphaKey));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(res.body.error.message).not.toContain('beta');
    expect(await count('timers')).toBe(before);
  });

  it('deletes only its own timers', async () => {
    const own = (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'alpha' }), bearer(alphaKey)))
      .body.id;
    expect(
      (await call(app, 'DELETE', `/api/v1/timers/${betaTimer}`, undefined, bearer(alphaKey))).status,
    ).toBe(403);
    expect((await call(app, 'GET', `/api/v1/timers/${betaTimer}`, undefined, ADMIN)).status).toBe(200);
    expect((await call(app, 'DELETE', `/api/v1/timers/${own}`, undefined, bearer(alphaKey))).status).toBe(
      204,
    );
  });

  it('lists only the app’s own timers, and 403 when the query names another app', async () => {
    const mine = await call(app, 'GET', '/api/v1/timers', undefined, bearer(alphaKey));
    expect(mine.status).toBe(200);
    expect(mine.body.items.length).toBeGreaterThan(0);
    expect(mine.body.items.every((t: { app: string }) => t.app === 'alpha')).toBe(true);
    expect((await call(app, 'GET', '/api/v1/timers?app=beta', undefined, bearer(alphaKey))).status).toBe(403);
    const all = await call(app, 'GET', '/api/v1/timers', undefined, ADMIN);
    expect(new Set(all.body.items.map((t: { app: string }) => t.app))).toEqual(new Set(['alpha', 'beta']));
  });

  it('leaves health, docs and the OpenAPI document public', async () => {
    for (const path of ['/healthz', '/openapi.json', '/docs'])
      expect((await call(app, 'GET', path)).status).toBe(200);
  });
});

describe('the emergency brake', () => {
  it('answers only the admin token: 401 without a token, 403 with an app key, changing nothing', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/pause'],
      ['POST', '/api/v1/pause', { note: 'drill' }],
      ['POST', '/api/v1/resume'],
    ];
    for (const [method, path, body] of routes) {
      expect((await call(app, method, path, body)).status, `${method} ${path}`).toBe(401);
      const asApp = await call(app, method, path, body, bearer(alphaKey));
      expect(asApp.status, `${method} ${path}`).toBe(403);
      expect(asApp.body.error.code).toBe('FORBIDDEN');
    }
    expect((await call(app, 'GET', '/api/v1/pause', undefined, ADMIN)).body).toEqual({ paused: false });
    const paused = await call(app, 'POST', '/api/v1/pause', { note: 'drill' }, ADMIN);
    expect(paused.body).toMatchObject({ paused: true, note: 'drill', pausedBy: 'admin' });
    const resumed = await call(app, 'POST', '/api/v1/resume', undefined, ADMIN);
    expect(resumed.body).toMatchObject({ paused: false, ended: { note: 'drill', pausedBy: 'admin' } });
  });
});

describe('compatible routes', () => {
  const goBody = (appName: string) => ({
    app: appName,
    name: `g-${Math.random().toString(36).slice(2, 10)}`,
    cron: '0 */5 * * * *',
    notifyHTTPParam: { method: 'POST', url: 'http://127.0.0.1:9/notify' },
  });
  const routes = (own: number): Array<[string, string, unknown?]> => [
    ['GET', `/api/timer/v1/def?id=${own}`],
    ['PATCH', '/api/timer/v1/def', { id: own, status: 0 }],
    ['GET', '/api/timer/v1/defs?app=alpha'],
    ['GET', '/api/timer/v1/defsByName?app=alpha&name=x'],
    ['POST', '/api/timer/v1/enable', { id: own }],
    ['POST', '/api/timer/v1/unable', { id: own }],
    ['GET', `/api/task/v1/records?timerID=${own}`],
    ['POST', '/api/timer/v1/def', goBody('alpha')],
  ];

  it('answers 401 in the {code, msg} envelope (code -1) without a valid token', async () => {
    for (const [method, path, body] of routes(alphaTimer)) {
      for (const headers of [{}, bearer('wrong')]) {
        const res = await call(app, method, path, body, headers);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body).toEqual({ code: -1, msg: expect.stringMatching(/^UNAUTHORIZED: /), err: null });
      }
    }
  });

  it('answers 403 in the {code, msg} envelope (code -1) for another app’s timers, 200 for its own', async () => {
    for (const [method, path, body] of routes(alphaTimer)) {
      const denied = await call(app, method, path, body, bearer(betaKey));
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body).toEqual({ code: -1, msg: expect.stringMatching(/^FORBIDDEN: /), err: null });
      expect(denied.body.msg).not.toContain('alpha');
      const allowed = await call(app, method, path, body, bearer(alphaKey));
      expect(allowed.status, `${method} ${path}: ${JSON.stringify(allowed.body)}`).toBe(200);
      expect(allowed.body.code).toBe(0);
    }
  });

  it('refuses a delete of another app’s timer', async () => {
    const res = await call(app, 'DELETE', `/api/timer/v1/def?id=${betaTimer}`, undefined, bearer(alphaKey));
    expect(res.status).toBe(403);
    expect((await call(app, 'GET', `/api/v1/timers/${betaTimer}`, undefined, ADMIN)).status).toBe(200);
  });
});

describe('rotation', () => {
  it('keeps the old key valid through its grace period and no longer (time injected)', async () => {
    const created = await call(app, 'POST', '/api/v1/apps', { app: 'rotating' }, ADMIN);
    const oldKey = created.body.apiKey as string;
    const rotated = await call(
      app,
      'POST',
      '/api/v1/apps/rotating/rotate',
      { rotate: 'key' },
      bearer(oldKey),
    );
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.apiKey as string;
    expect(newKey).toMatch(/^xtk_/);
    expect(newKey).not.toBe(oldKey);
    expect(rotated.body.signingSecret).toBeUndefined();
    expect(Date.parse(rotated.body.previousKeyValidUntil)).toBe(
      clock + stores.config.appKeyGraceSeconds * 1000,
    );

    for (const key of [oldKey, newKey]) {
      expect((await call(app, 'GET', '/api/v1/apps/rotating', undefined, bearer(key))).status).toBe(200);
    }
    const start = clock;
    try {
      clock = start + stores.config.appKeyGraceSeconds * 1000 - 1;
      expect((await call(app, 'GET', '/api/v1/apps/rotating', undefined, bearer(oldKey))).status).toBe(200);
      clock = start + stores.config.appKeyGraceSeconds * 1000 + 1;
      expect((await call(app, 'GET', '/api/v1/apps/rotating', undefined, bearer(oldKey))).status).toBe(401);
      expect((await call(app, 'GET', '/api/v1/apps/rotating', undefined, bearer(newKey))).status).toBe(200);
    } finally {
      clock = start;
    }
  });

  it('revokes the old key at once with graceSeconds 0', async () => {
    const oldKey = (await call(app, 'POST', '/api/v1/apps', { app: 'leaked' }, ADMIN)).body.apiKey as string;
    const rotated = await call(
      app,
      'POST',
      '/api/v1/apps/leaked/rotate',
      { rotate: 'key', graceSeconds: 0 },
      ADMIN,
    );
    expect(rotated.body.previousKeyValidUntil).toBeNull();
    expect((await call(app, 'GET', '/api/v1/apps/leaked', undefined, bearer(oldKey))).status).toBe(401);
    expect(
      (await call(app, 'GET', '/api/v1/apps/leaked', undefined, bearer(rotated.body.apiKey))).status,
    ).toBe(200);
  });

  it('issues a new signing secret, keeping the old one for the grace period', async () => {
    const created = await call(app, 'POST', '/api/v1/apps', { app: 'resign' }, ADMIN);
    const rotated = await call(
      app,
      'POST',
      '/api/v1/apps/resign/rotate',
      { rotate: 'secret', graceSeconds: 60 },
      ADMIN,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingSecret).toMatch(/^whsec_/);
    expect(rotated.body.signingSecret).not.toBe(created.body.signingSecret);
    expect(rotated.body.apiKey).toBeUndefined();
    expect(Date.parse(rotated.body.previousSecretValidUntil)).toBe(clock + 60_000);
    // The key is untouched.
    expect(
      (await call(app, 'GET', '/api/v1/apps/resign', undefined, bearer(created.body.apiKey))).status,
    ).toBe(200);
  });

  it('lets an app rotate only itself, and validates the body', async () => {
    expect(
      (await call(app, 'POST', '/api/v1/apps/beta/rotate', { rotate: 'key' }, bearer(alphaKey))).status,
    ).toBe(403);
    for (const body of [
      { rotate: 'password' },
      { rotate: 'key', graceSeconds: -1 },
      { rotate: 'key', extra: 1 },
      {},
    ]) {
      const res = await call(app, 'POST', '/api/v1/apps/alpha/rotate', body, ADMIN);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(app, 'POST', '/api/v1/apps/nope/rotate', { rotate: 'key' }, ADMIN)).status).toBe(404);
  });
});

describe('a key in its grace period (retired by a rotation)', () => {
  const NOTIFY = { url: 'http://127.0.0.1:9/notify', on: ['failed'] };
  const OTHER_NOTIFY = { url: 'http://127.0.0.1:9/elsewhere', on: ['failed', 'missed'] };
  let retired: Record<string, string>;
  let current: Record<string, string>;
  let timerId: number;

  beforeAll(async () => {
    const oldKey = (await call(app, 'POST', '/api/v1/apps', { app: 'graceful' }, ADMIN)).body.apiKey;
    timerId = (
      await call(
        app,
        'POST',
        '/api/v1/timers',
        timerBody({ app: 'graceful', name: 'kept', notify: NOTIFY }),
        bearer(oldKey),
      )
    ).body.id;
    const rotated = await call(
      app,
      'POST',
      '/api/v1/apps/graceful/rotate',
      { rotate: 'key' },
      bearer(oldKey),
    );
    expect(rotated.status).toBe(200);
    retired = bearer(oldKey);
    current = bearer(rotated.body.apiKey);
  });

  const expectRetired = (res: { status: number; body: any }, what: string) => {
    expect(res.status, what).toBe(403);
    expect(res.body.error.code, what).toBe('RETIRED_KEY');
    expect(res.body.error.message).toMatch(/grace period/);
  };

  it('may not rotate the key or the secret, with or without a grace period: the current key stays the one', async () => {
    const before = (await call(app, 'GET', '/api/v1/apps/graceful', undefined, ADMIN)).body;
    for (const body of [
      { rotate: 'key', graceSeconds: 0 },
      { rotate: 'key' },
      { rotate: 'secret', graceSeconds: 0 },
      { rotate: 'secret' },
    ]) {
      expectRetired(
        await call(app, 'POST', '/api/v1/apps/graceful/rotate', body, retired),
        JSON.stringify(body),
      );
    }
    const after = (await call(app, 'GET', '/api/v1/apps/graceful', undefined, ADMIN)).body;
    expect(after).toEqual(before);
    expect((await call(app, 'GET', '/api/v1/apps/graceful', undefined, current)).status).toBe(200);
  });

  it("may not change the app's notify, nor set or change a timer's", async () => {
    expectRetired(
      await call(app, 'PATCH', '/api/v1/apps/graceful', { notify: OTHER_NOTIFY }, retired),
      'app notify',
    );
    expectRetired(await call(app, 'PATCH', '/api/v1/apps/graceful', { notify: null }, retired), 'app notify');
    expectRetired(
      await call(app, 'PATCH', `/api/v1/timers/${timerId}`, { notify: OTHER_NOTIFY }, retired),
      'PATCH notify',
    );
    expectRetired(
      await call(app, 'PATCH', `/api/v1/timers/${timerId}`, { notify: null }, retired),
      'PATCH notify',
    );
    expectRetired(
      await call(
        app,
        'POST',
        '/api/v1/timers',
        timerBody({ app: 'graceful', notify: OTHER_NOTIFY }),
        retired,
      ),
      'create',
    );
    expectRetired(
      await call(
        app,
        'POST',
        '/api/v1/timers/batch',
        { timers: [timerBody({ app: 'graceful' }), timerBody({ app: 'graceful', notify: OTHER_NOTIFY })] },
        retired,
      ),
      'batch',
    );
    const { app: _, ...kept } = timerBody({ name: 'kept', notify: OTHER_NOTIFY });
    expectRetired(await call(app, 'PUT', '/api/v1/apps/graceful/timers/kept', kept, retired), 'PUT');
    expectRetired(
      await call(app, 'POST', '/api/v1/apps/graceful/apply', { timers: [kept], dryRun: true }, retired),
      'apply',
    );
    expect((await call(app, 'GET', `/api/v1/timers/${timerId}`, undefined, ADMIN)).body.notify).toEqual(
      NOTIFY,
    );
    expect(await count("timers WHERE app = 'graceful'")).toBe(1);
    // The current key may.
    expect(
      (await call(app, 'PATCH', `/api/v1/timers/${timerId}`, { notify: OTHER_NOTIFY }, current)).status,
    ).toBe(200);
    expect((await call(app, 'PATCH', `/api/v1/timers/${timerId}`, { notify: NOTIFY }, current)).status).toBe(
      200,
    );
  });

  it('keeps reading and firing the app’s timers, and sending them as they are', async () => {
    expect((await call(app, 'GET', '/api/v1/apps/graceful', undefined, retired)).status).toBe(200);
    expect((await call(app, 'GET', `/api/v1/timers/${timerId}`, undefined, retired)).status).toBe(200);
    expect((await call(app, 'POST', `/api/v1/timers/${timerId}/trigger`, undefined, retired)).status).toBe(
      202,
    );
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'graceful', name: 'new' }),
      retired,
    );
    expect(created.status).toBe(201);
    // A definition whose notify is what the timer already has changes no notify.
    const { app: _, ...kept } = timerBody({ name: 'kept', notify: NOTIFY, description: 'still kept' });
    const put = await call(app, 'PUT', '/api/v1/apps/graceful/timers/kept', kept, retired);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.notify).toEqual(NOTIFY);
    expect(put.body.description).toBe('still kept');
  });
});

describe('the dashboard with an admin token configured', () => {
  const basic = (user: string, password: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
  });

  it('asks for credentials, and takes the admin token as basic-auth password or bearer', async () => {
    for (const path of ['/dashboard/queues', '/dashboard/timers']) {
      const open = await app.request(path);
      expect(open.status).toBe(401);
      expect(open.headers.get('www-authenticate')).toMatch(/^Basic realm="xtimer dashboard"/);
      expect((await app.request(path, { headers: basic('anyone', ADMIN_TOKEN) })).status).toBe(200);
      expect((await app.request(path, { headers: ADMIN })).status).toBe(200);
      expect((await app.request(path, { headers: bearer(alphaKey) })).status).toBe(401);
      expect((await app.request(path, { headers: basic('admin', 'wrong') })).status).toBe(401);
    }
  });
});

describe('open mode (no admin token)', () => {
  let openStores: TestStores;
  let openApp: App;
  beforeAll(async () => {
    openStores = await createTestStores('authopen');
    openApp = createTestApp(createTestCore(openStores));
  });
  afterAll(async () => {
    await openStores.cleanup();
  });

  it('serves requests without a token as the admin, yet scopes and checks a token that is sent', async () => {
    const created = await call(openApp, 'POST', '/api/v1/apps', { app: 'solo' });
    expect(created.status).toBe(201);
    expect((await call(openApp, 'POST', '/api/v1/timers', timerBody({ app: 'other' }))).status).toBe(201);
    const key = bearer(created.body.apiKey);
    expect((await call(openApp, 'POST', '/api/v1/timers', timerBody({ app: 'other' }), key)).status).toBe(
      403,
    );
    expect((await call(openApp, 'POST', '/api/v1/timers', timerBody({ app: 'solo' }), key)).status).toBe(201);
    expect((await call(openApp, 'GET', '/api/v1/timers', undefined, bearer('made-up'))).status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the apps routes and the bearer security scheme', async () => {
    const doc = (await call(app, 'GET', '/openapi.json')).body;
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/api/v1/apps'].post).toBeDefined();
    expect(doc.paths['/api/v1/apps/{app}/rotate'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/v1/timers'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/v1/timers'].post.responses['429']).toBeDefined();
  });
});
