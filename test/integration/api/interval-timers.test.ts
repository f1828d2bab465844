import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/** Interval timers through the native API (`every`, `offset`). */

let stores: TestStores;
let app: App;
/** 2030-01-01T10:00:20Z: not on any interval's instant. */
const NOW = Date.UTC(2030, 0, 1, 10, 0, 20);
const MIN = 60_000;

beforeAll(async () => {
  stores = await createTestStores('intervals');
  app = createTestApp(createTestCore(stores, () => NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

const interval = (overrides: Record<string, unknown> = {}) =>
  timerBody({ cron: undefined, timezone: undefined, every: '90m', ...overrides });

describe('interval timers', () => {
  it('shows every and offset in the timer JSON, and previews epoch + offset + k·every', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', interval({ offset: 'PT15M' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      cron: null,
      at: null,
      every: '90m',
      offset: '15m',
      timezone: 'UTC',
    });

    const preview = await call(app, 'GET', `/api/v1/timers/${created.body.id}/preview?count=3`);
    const items = (preview.body.items as string[]).map((s) => Date.parse(s));
    expect(items.length).toBe(3);
    for (const t of items) expect((t - 15 * MIN) % (90 * MIN)).toBe(0);
    expect(items[0]).toBeGreaterThan(NOW);
    expect(items[0]! - NOW).toBeLessThanOrEqual(90 * MIN);

    const from = Date.UTC(2031, 5, 1);
    const later = await call(
      app,
      'GET',
      `/api/v1/timers/${created.body.id}/preview?count=2&from=${new Date(from).toISOString()}`,
    );
    const [first, second] = (later.body.items as string[]).map((s) => Date.parse(s));
    expect(first).toBeGreaterThanOrEqual(from);
    expect(first! - from).toBeLessThan(90 * MIN);
    expect(second! - first!).toBe(90 * MIN);
  });

  it('plans its runs when created active, on the computed instants', async () => {
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      interval({ every: '10s', offset: '3s', status: 'active' }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const upcoming = await call(app, 'GET', `/api/v1/timers/${created.body.id}/tasks?upcoming=true&limit=5`);
    const runAts = (upcoming.body.items as Array<{ runAt: string }>).map((t) => Date.parse(t.runAt));
    expect(runAts.slice(0, 3)).toEqual([NOW + 3000, NOW + 13_000, NOW + 23_000]);
  });

  it('turns into a cron timer and back with a PATCH, re-planning its runs', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', interval({ every: '1m', status: 'active' }));
    const id = created.body.id;
    const toCron = await call(app, 'PATCH', `/api/v1/timers/${id}`, { cron: '0 0 * * * *' });
    expect(toCron.body).toMatchObject({ cron: '0 0 * * * *', every: null, offset: null });
    const back = await call(app, 'PATCH', `/api/v1/timers/${id}`, { every: '2m', offset: '30s' });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({ cron: null, every: '2m', offset: '30s' });
    const upcoming = await call(app, 'GET', `/api/v1/timers/${id}/tasks?upcoming=true&limit=3`);
    for (const t of upcoming.body.items as Array<{ runAt: string }>) {
      expect((Date.parse(t.runAt) - 30_000) % (2 * MIN)).toBe(0);
    }
    const offsetTooLong = await call(app, 'PATCH', `/api/v1/timers/${id}`, { offset: '2m' });
    expect(offsetTooLong.status).toBe(400);
    expect(offsetTooLong.body.error.message).toContain('offset');
  });

  it('runs now like any timer', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', interval());
    const run = await call(app, 'POST', `/api/v1/timers/${created.body.id}/trigger`);
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({
      timerId: created.body.id,
      trigger: 'manual',
      runAt: new Date(NOW).toISOString(),
    });
  });

  it.each([
    ['cron and every', { cron: '* * * * *', every: '1m' }, ['cron', 'every']],
    ['every and at', { every: '1m', at: '2030-02-01T00:00:00Z' }, ['every', 'at']],
    [
      'cron, every and at',
      { cron: '* * * * *', every: '1m', at: '2030-02-01T00:00:00Z' },
      ['cron', 'every', 'at'],
    ],
  ])('refuses %s together, naming the fields', async (_, fields, named) => {
    const res = await call(app, 'POST', '/api/v1/timers', { ...interval(), ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    for (const f of named) expect(res.body.error.message).toContain(f);
  });

  it.each([
    ['an interval under a second', { every: '500ms' }],
    ['an interval under a second (ISO)', { every: 'PT0.5S' }],
    ['a month', { every: 'P1M' }],
    ['no unit', { every: '90' }],
    ['an offset as long as the interval', { every: '1m', offset: '60s' }],
    ['an offset without an interval', { every: undefined, cron: '* * * * *', offset: '5s' }],
  ])('refuses %s with a 400', async (_, fields) => {
    const res = await call(app, 'POST', '/api/v1/timers', { ...interval(), ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
  });

  it('refuses cron and every together in a PATCH', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', interval());
    const res = await call(app, 'PATCH', `/api/v1/timers/${created.body.id}`, {
      cron: '* * * * *',
      every: '1m',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/cron and every/);
  });
});
