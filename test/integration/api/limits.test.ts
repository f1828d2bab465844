import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Limits: the per-app rate limit on changes (429 + Retry-After, shared by every
 * api process through Redis), MAX_TIMERS_PER_APP, and MIN_RUN_INTERVAL_MS.
 */

const ADMIN = { authorization: 'Bearer admin-token-for-the-limit-tests-012345' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let stores: TestStores;
/** Two api "processes" over the same stores and clock. */
let app: App;
let otherApp: App;
/** 2030-01-01T10:00:10Z: 50 s left in the minute's window. */
let clock = Date.UTC(2030, 0, 1, 10, 0, 10);

beforeAll(async () => {
  stores = await createTestStores('limits', {
    XTIMER_ADMIN_TOKEN: ADMIN.authorization.slice('Bearer '.length),
    XTIMER_SECRET_KEY: 'secret-key-for-the-limit-tests-0123456789',
    APP_RATE_LIMIT_PER_MINUTE: '4',
    MAX_TIMERS_PER_APP: '2',
    MIN_RUN_INTERVAL_MS: '5000',
  });
  app = createTestApp(createTestCore(stores, () => clock));
  otherApp = createTestApp(createTestCore(stores, () => clock));
});
afterAll(async () => {
  await stores.cleanup();
});

async function newApp(name: string): Promise<Record<string, string>> {
  const res = await call(app, 'POST', '/api/v1/apps', { app: name }, ADMIN);
  expect(res.status).toBe(201);
  return bearer(res.body.apiKey);
}

async function timerCount(appName: string): Promise<number> {
  const [rows] = await stores.database.pool.query('SELECT COUNT(*) AS n FROM timers WHERE app = ?', [
    appName,
  ]);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

const EVERY_5S = '*/5 * * * * *';

describe('APP_RATE_LIMIT_PER_MINUTE', () => {
  it('answers 429 with Retry-After once an app key made its changes for the minute, across api processes', async () => {
    const key = await newApp('ratey');
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'ratey', cron: EVERY_5S }),
      key,
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await call(otherApp, 'POST', `/api/v1/timers/${id}/enable`, undefined, key)).status).toBe(200);
    expect((await call(app, 'POST', `/api/v1/timers/${id}/disable`, undefined, key)).status).toBe(200);
    expect((await call(otherApp, 'PATCH', `/api/v1/timers/${id}`, { name: 'renamed' }, key)).status).toBe(
      200,
    );

    const limited = await call(app, 'DELETE', `/api/v1/timers/${id}`, undefined, key);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('50');
    const compat = await call(otherApp, 'POST', '/api/timer/v1/enable', { id }, key);
    expect(compat.status).toBe(429);
    expect(compat.body).toEqual({ code: -1, msg: expect.stringMatching(/^RATE_LIMITED: /), err: null });
    expect(compat.headers.get('retry-after')).toBe('50');

    // Reads are not limited; nor is the admin.
    expect((await call(app, 'GET', `/api/v1/timers/${id}`, undefined, key)).status).toBe(200);
    expect((await call(app, 'POST', `/api/v1/timers/${id}/enable`, undefined, ADMIN)).status).toBe(200);
    // Another app has its own budget.
    const other = await newApp('calm');
    expect(
      (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'calm', cron: EVERY_5S }), other)).status,
    ).toBe(201);

    const start = clock;
    try {
      clock = Date.UTC(2030, 0, 1, 10, 1, 0);
      expect((await call(app, 'DELETE', `/api/v1/timers/${id}`, undefined, key)).status).toBe(204);
    } finally {
      clock = start;
    }
  });
});

describe('APP_RATE_LIMIT_PER_MINUTE over a bulk run now', () => {
  it('spends a call per run before any goes: refused, it starts none', async () => {
    const key = await newApp('bulky');
    const ids: number[] = [];
    for (const name of ['one', 'two']) {
      const res = await call(
        app,
        'POST',
        '/api/v1/timers',
        timerBody({ app: 'bulky', name, cron: EVERY_5S }),
        ADMIN,
      );
      ids.push(res.body.id);
    }
    // Three of the minute's four calls spent: two runs now would make five.
    for (let i = 0; i < 3; i++)
      expect((await call(app, 'GET', `/api/v1/timers/${ids[0]}/preview`, undefined, key)).status).toBe(200);
    const refused = await call(app, 'POST', '/api/v1/timers/bulk', { action: 'trigger', ids }, key);
    expect(refused.status).toBe(429);
    const [rows] = await stores.database.pool.query(
      "SELECT COUNT(*) AS n FROM tasks WHERE run_trigger = 'manual' AND timer_id IN (?)",
      [ids],
    );
    expect(Number((rows as Array<{ n: number }>)[0]!.n)).toBe(0);
  });
});

describe('APP_RATE_LIMIT_PER_MINUTE over a compat PATCH', () => {
  it('counts a PATCH that changes the definition and the status as one call', async () => {
    const key = await newApp('compatty');
    const start = clock;
    try {
      clock = Date.UTC(2030, 0, 1, 10, 7, 10);
      const { id } = (
        await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'compatty', cron: EVERY_5S }), ADMIN)
      ).body;
      const patched = await call(app, 'PATCH', '/api/timer/v1/def', { id, name: 'renamed', status: 2 }, key);
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect((await call(app, 'GET', `/api/v1/timers/${id}`, undefined, key)).body).toMatchObject({
        name: 'renamed',
        status: 'active',
      });
      // Three of the minute's four calls are left.
      for (let i = 0; i < 3; i++)
        expect((await call(app, 'GET', `/api/v1/timers/${id}/preview`, undefined, key)).status).toBe(200);
      expect((await call(app, 'GET', `/api/v1/timers/${id}/preview`, undefined, key)).status).toBe(429);
    } finally {
      clock = start;
    }
  });
});

describe('APP_RATE_LIMIT_PER_MINUTE over previews and dry runs', () => {
  it('counts each preview (saved, explained or unsaved) and each dry-run apply as a call of the app key', async () => {
    const key = await newApp('peeky');
    const start = clock;
    try {
      clock = Date.UTC(2030, 0, 1, 10, 5, 10);
      const { id } = (
        await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'peeky', cron: EVERY_5S }), ADMIN)
      ).body;
      const { app: _, ...applied } = timerBody({ cron: EVERY_5S });
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/api/v1/timers/${id}/preview?count=3`],
        ['GET', `/api/v1/timers/${id}/preview?count=3&explain=true`],
        ['GET', `/api/v1/preview?cron=${encodeURIComponent(EVERY_5S)}&count=3`],
        ['POST', '/api/v1/apps/peeky/apply', { timers: [applied], dryRun: true }],
      ];
      for (const [method, path, body] of calls) {
        expect((await call(otherApp, method, path, body, key)).status, `${method} ${path}`).toBe(200);
      }
      for (const [method, path, body] of calls) {
        const limited = await call(app, method, path, body, key);
        expect(limited.status, `${method} ${path}`).toBe(429);
        expect(limited.body.error.code).toBe('RATE_LIMITED');
        expect(limited.headers.get('retry-after')).toBe('50');
      }
      // The admin's previews are not limited.
      expect((await call(app, 'GET', `/api/v1/timers/${id}/preview?count=3`, undefined, ADMIN)).status).toBe(
        200,
      );
    } finally {
      clock = start;
    }
  });
});

describe('MAX_TIMERS_PER_APP', () => {
  it('refuses a timer beyond the limit with 409 TIMER_LIMIT_REACHED, storing nothing, until one is deleted', async () => {
    const first = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'full', cron: EVERY_5S }),
      ADMIN,
    );
    await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'full', cron: EVERY_5S }), ADMIN);
    expect(await timerCount('full')).toBe(2);

    const over = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'full', cron: EVERY_5S }), ADMIN);
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('TIMER_LIMIT_REACHED');
    const compat = await call(
      app,
      'POST',
      '/api/timer/v1/def',
      {
        app: 'full',
        name: 'one-more',
        cron: EVERY_5S,
        notifyHTTPParam: { url: 'http://127.0.0.1:9/hook' },
      },
      ADMIN,
    );
    // The original answers what its service refuses with HTTP 200 and code -1.
    expect(compat.status).toBe(200);
    expect(compat.body).toMatchObject({ code: -1, msg: expect.stringMatching(/^TIMER_LIMIT_REACHED: /) });
    expect(await timerCount('full')).toBe(2);

    expect((await call(app, 'DELETE', `/api/v1/timers/${first.body.id}`, undefined, ADMIN)).status).toBe(204);
    expect(
      (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'full', cron: EVERY_5S }), ADMIN)).status,
    ).toBe(201);
  });

  it('refuses a dry-run apply as the apply would, counting the room its prune makes', async () => {
    const { app: _, ...base } = timerBody({ cron: EVERY_5S });
    const set = (names: string[], more: Record<string, unknown> = {}) => ({
      timers: names.map((name) => ({ ...base, name })),
      ...more,
    });
    const applyAs = (body: unknown) => call(app, 'POST', '/api/v1/apps/roomless/apply', body, ADMIN);
    expect((await applyAs(set(['a', 'b']))).status).toBe(200);
    for (const dryRun of [true, false]) {
      const over = await applyAs(set(['a', 'b', 'c'], { dryRun }));
      expect(over.status, JSON.stringify(over.body)).toBe(409);
      expect(over.body.error.code).toBe('TIMER_LIMIT_REACHED');
    }
    const pruned = await applyAs(set(['a', 'c'], { prune: true, dryRun: true }));
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    expect(await timerCount('roomless')).toBe(2);
  });

  it('lets a key in its grace period apply a pruned set that fits once its deletes are made', async () => {
    const old = await newApp('graceful');
    const { app: _, ...base } = timerBody({ cron: EVERY_5S });
    const set = (names: string[]) => ({ timers: names.map((name) => ({ ...base, name })), prune: true });
    expect((await call(app, 'POST', '/api/v1/apps/graceful/apply', set(['a', 'b']), ADMIN)).status).toBe(200);
    const rotated = await call(app, 'POST', '/api/v1/apps/graceful/rotate', { rotate: 'key' }, ADMIN);
    expect(rotated.status).toBe(200);
    const renamed = await call(app, 'POST', '/api/v1/apps/graceful/apply', set(['a', 'c']), old);
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.plan.map((s: { action: string }) => s.action)).toEqual([
      'unchanged',
      'create',
      'delete',
    ]);
  });

  it('holds under concurrent creates (counted under the app lock)', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(app, 'POST', '/api/v1/timers', timerBody({ app: 'racing', cron: EVERY_5S }), ADMIN),
      ),
    );
    const created = results.filter((r) => r.status === 201).length;
    expect(created).toBeLessThanOrEqual(2);
    expect(await timerCount('racing')).toBeLessThanOrEqual(2);
  });
});

describe('MIN_RUN_INTERVAL_MS', () => {
  it.each([
    ['* * * * * *', 'every second'],
    ['0,1 0 * * * *', 'two runs a second apart once an hour'],
    ['*/2 * * * * *', 'every two seconds'],
  ])('refuses %s (%s) with 400 CRON_TOO_FREQUENT', async (cron) => {
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'often', cron }), ADMIN);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('CRON_TOO_FREQUENT');
    expect(res.body.error.message).toContain('5000 ms');
    expect(await timerCount('often')).toBe(0);
  });

  it.each([EVERY_5S, '* * * * *', '0 30 2 * * *'])('accepts %s', async (cron) => {
    expect(
      (await call(app, 'POST', '/api/v1/timers', timerBody({ app: `sparse-${cron.length}`, cron }), ADMIN))
        .status,
    ).toBe(201);
  });

  it('checks each timer of a batch whose cron has H by its own schedule, though the text is shared', async () => {
    // 'H,H 0 * * * *' is 38,8 for h0 (30 s apart) and 39,41 for h12 (2 s apart).
    const cron = 'H,H 0 * * * *';
    const timers = [
      timerBody({ app: 'hashy', name: 'h0', cron }),
      timerBody({ app: 'hashy', name: 'h12', cron }),
    ];
    for (const [path, body] of [
      ['/api/v1/timers/batch', { timers }],
      ['/api/v1/apps/hashy/apply', { timers: timers.map(({ app: _, ...t }) => t) }],
    ] as const) {
      const res = await call(app, 'POST', path, body, ADMIN);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe('CRON_TOO_FREQUENT');
      expect(await timerCount('hashy')).toBe(0);
    }
  });

  it('checks a changed schedule on PATCH, and the compatible create', async () => {
    const t = (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'patchy', cron: EVERY_5S }), ADMIN))
      .body;
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, { cron: '* * * * * *' }, ADMIN);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('CRON_TOO_FREQUENT');
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`, undefined, ADMIN)).body.cron).toBe(EVERY_5S);
    expect((await call(app, 'PATCH', `/api/v1/timers/${t.id}`, { name: 'still-fine' }, ADMIN)).status).toBe(
      200,
    );

    const compat = await call(
      app,
      'POST',
      '/api/timer/v1/def',
      {
        app: 'patchy',
        name: 'go-often',
        cron: '* * * * * * *',
        notifyHTTPParam: { url: 'http://127.0.0.1:9/hook' },
      },
      ADMIN,
    );
    expect(compat.status).toBe(200);
    expect(compat.body).toMatchObject({ code: -1, msg: expect.stringMatching(/^CRON_TOO_FREQUENT: /) });
  });
});
