import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * POST /api/v1/timers/batch: up to 1,000 timers in one request, all or
 * nothing — one that may not be created fails the request naming its index, and no
 * timer of it is stored.
 */

const ADMIN = { authorization: 'Bearer admin-token-for-the-batch-tests-0123456789' };
/** 2030-01-01T10:17:30Z: a dense timer is planned to 10:20, a sparse one to 12:00. */
const NOW = Date.UTC(2030, 0, 1, 10, 17, 30);

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('batch', {
    XTIMER_ADMIN_TOKEN: ADMIN.authorization.slice('Bearer '.length),
    XTIMER_SECRET_KEY: 'secret-key-for-the-batch-tests-0123456789',
    MAX_TIMERS_PER_APP: '1000',
    MIN_RUN_INTERVAL_MS: '2000',
    APP_RATE_LIMIT_PER_MINUTE: '2',
  });
  app = createTestApp(createTestCore(stores, () => NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

const batch = (timers: unknown[], headers = ADMIN) =>
  call(app, 'POST', '/api/v1/timers/batch', { timers }, headers);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${sql}`, params);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

const timersOf = (appName: string) => count('timers WHERE app = ?', [appName]);

/** Asserts a refusal naming item `index`, and that the app still has `before` timers. */
async function expectRefused(
  res: { status: number; body: any },
  status: number,
  code: string,
  index: number,
  appName: string,
  before = 0,
) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message).toMatch(new RegExp(`^timers\\.${index}[.:]`));
  expect(await timersOf(appName)).toBe(before);
}

describe('POST /api/v1/timers/batch', () => {
  it('creates every timer in the order sent, as GET shows them, and plans the active ones', async () => {
    const res = await batch([
      timerBody({
        app: 'orders',
        name: 'every-2s',
        cron: '*/2 * * * * *',
        timezone: 'UTC',
        status: 'active',
      }),
      timerBody({ app: 'orders', name: 'hourly', cron: '0 0 * * * *', timezone: 'UTC', status: 'active' }),
      timerBody({ app: 'orders', name: 'idle' }),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const items = res.body.items;
    expect(items.map((t: any) => [t.name, t.status])).toEqual([
      ['every-2s', 'active'],
      ['hourly', 'active'],
      ['idle', 'inactive'],
    ]);
    for (const t of items)
      expect((await call(app, 'GET', `/api/v1/timers/${t.id}`, undefined, ADMIN)).body).toEqual(t);

    // The dense one for its near term (10:17:30 to 10:20), the sparse one to the horizon (11:00).
    expect(await count("tasks WHERE timer_id = ? AND status = 'pending'", [items[0].id])).toBe(75);
    expect(
      await count('tasks WHERE timer_id = ? AND run_at = ?', [
        items[1].id,
        new Date(Date.UTC(2030, 0, 1, 11)),
      ]),
    ).toBe(1);
    expect(await count('tasks WHERE timer_id = ?', [items[2].id])).toBe(0);
  });

  it('takes 1,000 timers, and refuses 1,001 or none', async () => {
    const thousand = Array.from({ length: 1000 }, (_, i) => timerBody({ app: 'thousand', name: `t${i}` }));
    const res = await batch(thousand);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(res.body.items).toHaveLength(1000);
    expect(res.body.items.map((t: any) => t.name)).toEqual(thousand.map((t) => t.name));
    expect(new Set(res.body.items.map((t: any) => t.id)).size).toBe(1000);

    const over = await batch([...thousand, timerBody({ app: 'thousand-more' })]);
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain('at most 1000');
    expect((await batch([])).status).toBe(400);
  });

  it('refuses the whole batch when an app would pass MAX_TIMERS_PER_APP', async () => {
    // The app "thousand" holds 1,000 timers (the test above): one more is too many.
    const res = await batch([
      timerBody({ app: 'other' }),
      timerBody({ app: 'thousand', name: 'one-too-many' }),
    ]);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('TIMER_LIMIT_REACHED');
    expect(res.body.error.message).toContain('thousand');
    expect(await timersOf('other')).toBe(0);
    expect(await timersOf('thousand')).toBe(1000);
  });

  it('refuses an item that fails validation with 400 naming its index, storing none', async () => {
    const res = await batch([
      timerBody({ app: 'invalid' }),
      timerBody({ app: 'invalid' }),
      timerBody({ app: 'invalid', cron: '0 61 * * * *' }),
    ]);
    await expectRefused(res, 400, 'INVALID_CRON', 2, 'invalid');
    expect(res.body.error.details[0].path).toBe('timers.2.cron');
  });

  it.each([
    [
      'a callback target the SSRF guard blocks',
      { callback: { url: 'http://10.0.0.1/hook' } },
      'TARGET_BLOCKED',
    ],
    ['a cron more frequent than MIN_RUN_INTERVAL_MS', { cron: '* * * * * *' }, 'CRON_TOO_FREQUENT'],
    ['a one-shot time in the past', { cron: undefined, at: '2029-01-01T00:00:00Z' }, 'VALIDATION_FAILED'],
  ])('refuses %s at its index with nothing stored', async (_what, overrides, code) => {
    const res = await batch([timerBody({ app: 'checked' }), timerBody({ app: 'checked', ...overrides })]);
    await expectRefused(res, 400, code, 1, 'checked');
  });

  it('refuses two items of one name with 400 at the second, and a name the app has with 409', async () => {
    await expectRefused(
      await batch([
        timerBody({ app: 'named', name: 'a' }),
        timerBody({ app: 'named', name: 'b' }),
        timerBody({ app: 'named', name: 'a' }),
      ]),
      400,
      'VALIDATION_FAILED',
      2,
      'named',
    );
    expect(
      (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'named', name: 'b' }), ADMIN)).status,
    ).toBe(201);
    await expectRefused(
      await batch([timerBody({ app: 'named', name: 'a' }), timerBody({ app: 'named', name: 'b' })]),
      409,
      'TIMER_NAME_TAKEN',
      1,
      'named',
      1,
    );
  });

  it('lets an app key create only its own timers, and spends one change of its rate limit per batch', async () => {
    const created = await call(app, 'POST', '/api/v1/apps', { app: 'keyed' }, ADMIN);
    const key = { authorization: `Bearer ${created.body.apiKey}` };
    const mixed = await batch([timerBody({ app: 'keyed' }), timerBody({ app: 'someone-else' })], key);
    expect(mixed.status).toBe(403);
    expect(await timersOf('keyed')).toBe(0);

    const three = [0, 1, 2].map(() => timerBody({ app: 'keyed' }));
    expect((await batch(three, key)).status).toBe(201);
    // APP_RATE_LIMIT_PER_MINUTE is 2: the refused batch (403) spent nothing, this one one.
    expect((await batch([timerBody({ app: 'keyed' })], key)).status).toBe(201);
    expect((await batch([timerBody({ app: 'keyed' })], key)).status).toBe(429);
    expect(await timersOf('keyed')).toBe(4);
  });
});

describe('concurrent single creates (stored together)', () => {
  it('answers each create on its own: one name twice gets one 201 and one 409, the rest 201', async () => {
    const bodies = Array.from({ length: 60 }, (_, i) => timerBody({ app: `crowd${i % 3}`, name: `c${i}` }));
    bodies.push(timerBody({ app: 'crowd0', name: 'c0' }));
    const answers = await Promise.all(bodies.map((b) => call(app, 'POST', '/api/v1/timers', b, ADMIN)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(60);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => [a.status, a.body.error.code])).toEqual([[409, 'TIMER_NAME_TAKEN']]);
    expect(refused[0]!.body.error.message).not.toMatch(/^timers\./);
    const created = answers.filter((a) => a.status === 201).map((a) => a.body);
    expect(new Set(created.map((t) => t.id)).size).toBe(60);
    for (const t of created.slice(0, 5))
      expect((await call(app, 'GET', `/api/v1/timers/${t.id}`, undefined, ADMIN)).body).toEqual(t);
    expect(await count("timers WHERE app LIKE 'crowd%'")).toBe(60);
  });
});
