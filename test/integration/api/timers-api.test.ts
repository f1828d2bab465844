import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { minuteKey } from '../../../src/domain/plan/slice.js';
import { jitterOffset } from '../../../src/domain/schedule/jitter.js';
import { createLogger } from '../../../src/observability/logger.js';
import { buildMigrationRunner } from '../../../src/services/planning/build-migration-runner.js';
import { TaskRepository } from '../../../src/storage/db/tasks/task-repository.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, eventually, type TestStores } from '../../helpers/stores.js';

/** The native timer routes, over real MariaDB and Redis. */

let stores: TestStores;
/** Real clock. */
let core: Core;
let app: App;
/** A fixed clock (2030-01-01T10:17:30Z, a Tuesday), for exact planning and preview assertions. */
const FIXED_NOW = Date.UTC(2030, 0, 1, 10, 17, 30);
let fixedCore: Core;
let fixedApp: App;
/** The same stores an hour and a half later (12:00Z), when the fixed clock's planned runs are history. */
let laterApp: App;

beforeAll(async () => {
  stores = await createTestStores('timersapi');
  core = createTestCore(stores);
  app = createTestApp(core);
  fixedCore = createTestCore(stores, () => FIXED_NOW);
  fixedApp = createTestApp(fixedCore);
  laterApp = createTestApp(createTestCore(stores, () => Date.UTC(2030, 0, 1, 12)));
});
afterAll(async () => {
  await stores.cleanup();
});

const EVERY_MINUTE = '* * * * *';

async function create(overrides: Record<string, unknown> = {}, on: App = app) {
  const res = await call(on, 'POST', '/api/v1/timers', timerBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Every task of a timer, following nextCursor to the end. */
async function allTasks(id: number, query = '', limit = 500, on: App = app) {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q = new URLSearchParams(query);
    q.set('limit', String(limit));
    if (cursor) q.set('cursor', cursor);
    const res = await call(on, 'GET', `/api/v1/timers/${id}/tasks?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return { items, pages };
}

async function pendingRowCount(timerId: number): Promise<number> {
  const [rows] = await stores.database.pool.query(
    "SELECT COUNT(*) AS n FROM tasks WHERE timer_id = ? AND status = 'pending'",
    [timerId],
  );
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

/** Is the run in its Redis slice (the working set the trigger reads)? */
async function inSlice(c: Core, timerId: number, runAt: number): Promise<boolean> {
  const minute = minuteKey(runAt);
  const [count] = await c.slices.bucketCounts([Date.parse(`${minute}:00.000Z`)]);
  if (count === null || count === undefined) return false;
  const runs = await c.slices.read(minute, timerId % count, runAt, runAt + 1);
  return runs.some((r) => r.timerId === timerId && r.runAt === runAt);
}

describe('POST /api/v1/timers', () => {
  it('creates a timer and returns it with defaults applied', async () => {
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ name: 'nightly-invoice' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      app: 'billing',
      name: 'nightly-invoice',
      status: 'inactive',
      retry: { maxAttempts: 3, backoffMs: 1000 },
      misfirePolicy: 'fire_once',
    });
    const got = await call(app, 'GET', `/api/v1/timers/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('fills every optional field with its default from a minimal body', async () => {
    const res = await call(app, 'POST', '/api/v1/timers', {
      app: 'minimal',
      name: 'bare',
      cron: '0 0 * * *',
      callback: { url: 'https://example.test/hook' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      app: 'minimal',
      name: 'bare',
      cron: '0 0 * * *',
      resolvedCron: '0 0 * * *',
      every: null,
      offset: null,
      jitterMs: 0,
      timezone: 'UTC',
      callback: {
        url: 'https://example.test/hook',
        method: 'POST',
        headers: {},
        body: null,
        timeoutMs: stores.config.callbackTimeoutMs,
      },
      retry: { maxAttempts: 3, backoffMs: 1000 },
      misfirePolicy: 'fire_once',
      misfireThresholdMs: 60_000,
      at: null,
      startAt: null,
      endAt: null,
      maxRuns: null,
      overlapPolicy: 'allow',
      notify: null,
      labels: {},
      description: null,
      autoPause: null,
      skipCalendars: [],
      status: 'inactive',
      pausedNote: null,
      pausedAt: null,
      pausedUntil: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);
  });

  it('keeps every given field as sent', async () => {
    const body = timerBody({
      app: 'exact',
      name: 'all-fields',
      cron: '15 */5 * * * *',
      timezone: 'Europe/Berlin',
      callback: {
        url: 'https://hooks.example.test/run?x=1',
        method: 'PUT',
        headers: { 'x-token': 'abc', 'content-type': 'text/plain' },
        body: 'raw text, not re-encoded: {"a": 1 }',
        timeoutMs: 1234,
      },
      retry: { maxAttempts: 7, backoffMs: 250 },
      misfirePolicy: 'skip',
      misfireThresholdMs: 5000,
      at: null,
      startAt: '2031-01-01T00:00:00.000Z',
      endAt: '2032-06-30T12:00:00.000Z',
      maxRuns: 12,
      overlapPolicy: 'buffer_one',
      notify: { url: 'https://alerts.example.test/xtimer', on: ['failed'] },
      labels: { team: 'payments', 'k8s.io/zone': 'eu-1' },
      description: 'Every field, as sent.',
      every: null,
      offset: null,
      jitterMs: 30_000,
      autoPause: { afterConsecutiveFailures: 5 },
      skipCalendars: [],
    });
    const res = await call(app, 'POST', '/api/v1/timers', body);
    expect(res.status).toBe(201);
    const { id, createdAt, updatedAt, ...rest } = res.body;
    expect(rest).toEqual({
      ...body,
      resolvedCron: '15 */5 * * * *',
      status: 'inactive',
      pausedNote: null,
      pausedAt: null,
      pausedUntil: null,
    });
  });

  it("answers an app's create while another app's changes wait for its mutex", async () => {
    // App alpha is busy (a long apply of its own holds its mutex): its creates wait for it.
    const alphaLock = core.keys.appLock('busy-alpha');
    await stores.redis.set(alphaLock, 'held by the test', 'PX', 30_000);
    const alpha = [1, 2, 3].map((i) =>
      call(app, 'POST', '/api/v1/timers', timerBody({ app: 'busy-alpha', name: `a${i}` })),
    );
    const beta = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'free-beta', name: 'b' }));
    expect(beta.status, JSON.stringify(beta.body)).toBe(201);
    // Answered while alpha's mutex was still held; then alpha's own creates go through.
    expect(await stores.redis.get(alphaLock)).toBe('held by the test');
    await stores.redis.del(alphaLock);
    expect((await Promise.all(alpha)).map((r) => r.status)).toEqual([201, 201, 201]);
  });

  it('creates an inactive timer without materialising any run', async () => {
    const t = await create({ cron: EVERY_MINUTE });
    expect(await pendingRowCount(t.id)).toBe(0);
  });

  it('accepts status active on create and materialises its runs at once', async () => {
    const res = await call(
      fixedApp,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'born-active', cron: EVERY_MINUTE, timezone: 'UTC', status: 'active' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('active');
    // The near term only, from 10:17:30 to 10:20: 10:18 and 10:19 (the migrator's top-up plans the rest).
    expect(await pendingRowCount(res.body.id)).toBe(2);
  });
});

describe('GET /api/v1/timers/:id', () => {
  it('returns the stored timer', async () => {
    const t = await create({ app: 'getter', name: 'one' });
    const res = await call(app, 'GET', `/api/v1/timers/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(t);
  });
});

describe('GET /api/v1/timers', () => {
  it('filters by app and by status, in id order', async () => {
    const a1 = await create({ app: 'listing', name: 'a1' });
    const a2 = await create({ app: 'listing', name: 'a2', status: 'active' });
    const a3 = await create({ app: 'listing', name: 'a3' });
    await create({ app: 'listing-other', name: 'a1' });

    const all = await call(app, 'GET', '/api/v1/timers?app=listing');
    expect(all.status).toBe(200);
    expect(all.body.items.map((t: any) => t.id)).toEqual([a1.id, a2.id, a3.id]);
    expect(all.body.nextCursor).toBeNull();

    const active = await call(app, 'GET', '/api/v1/timers?app=listing&status=active');
    expect(active.body.items.map((t: any) => t.id)).toEqual([a2.id]);
    const inactive = await call(app, 'GET', '/api/v1/timers?app=listing&status=inactive');
    expect(inactive.body.items.map((t: any) => t.id)).toEqual([a1.id, a3.id]);

    const none = await call(app, 'GET', '/api/v1/timers?app=nobody-here');
    expect(none.body).toEqual({ items: [], nextCursor: null });
  });

  it('lists every app in ascending id order without a filter', async () => {
    const { body } = await call(app, 'GET', '/api/v1/timers?limit=500');
    const ids = body.items.map((t: any) => t.id);
    expect(ids.length).toBeGreaterThan(3);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    expect(new Set(body.items.map((t: any) => t.app)).size).toBeGreaterThan(1);
  });

  it('pages through with nextCursor, losing and repeating nothing', async () => {
    const created: number[] = [];
    for (let i = 0; i < 8; i++) created.push((await create({ app: 'paging', name: `p${i}` })).id);

    const seen: number[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const path: string = `/api/v1/timers?app=paging&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await call(app, 'GET', path);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((t: any) => t.id));
      pageSizes.push(res.body.items.length);
      cursor = res.body.nextCursor;
      // A timer added mid-way (a higher id) turns up on a later page.
      if (page === 0) created.push((await create({ app: 'paging', name: 'late' })).id);
      page++;
    } while (cursor);

    expect(seen).toEqual(created);
    expect(pageSizes).toEqual([3, 3, 3]);
  });

  it('answers the last full page with nextCursor null (no empty trailing page)', async () => {
    for (let i = 0; i < 4; i++) await create({ app: 'even-pages', name: `e${i}` });
    const first = await call(app, 'GET', '/api/v1/timers?app=even-pages&limit=2');
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(
      app,
      'GET',
      `/api/v1/timers?app=even-pages&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
  });

  it('keeps its place when an already-seen timer is deleted between pages', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ app: 'stable', name: `s${i}` })).id);
    const first = await call(app, 'GET', '/api/v1/timers?app=stable&limit=2');
    expect(first.body.items.map((t: any) => t.id)).toEqual(ids.slice(0, 2));
    expect((await call(app, 'DELETE', `/api/v1/timers/${ids[0]}`)).status).toBe(204);
    const second = await call(
      app,
      'GET',
      `/api/v1/timers?app=stable&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items.map((t: any) => t.id)).toEqual(ids.slice(2, 4));
  });

  it('rejects an invalid cursor with 400 INVALID_CURSOR', async () => {
    const res = await call(app, 'GET', '/api/v1/timers?app=paging&cursor=%25%25garbage');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_CURSOR');
  });
});

describe('PATCH /api/v1/timers/:id', () => {
  it('merges callback and retry field by field and leaves other fields alone', async () => {
    const t = await create({ app: 'patching', name: 'merge', retry: { maxAttempts: 5, backoffMs: 2000 } });
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, {
      callback: { url: 'https://new.example.test/hook' },
      retry: { backoffMs: 10 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...t,
      callback: { ...t.callback, url: 'https://new.example.test/hook' },
      retry: { maxAttempts: 5, backoffMs: 10 },
      updatedAt: expect.any(String),
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(t.updatedAt));
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body).toEqual(res.body);
  });

  it('changes name, cron, timezone and misfire policy', async () => {
    const t = await create({ app: 'patching', name: 'several' });
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, {
      name: 'renamed',
      cron: '0 0 9 * * 1-5',
      timezone: 'America/New_York',
      misfirePolicy: 'fire_all',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'renamed',
      cron: '0 0 9 * * 1-5',
      timezone: 'America/New_York',
      misfirePolicy: 'fire_all',
      callback: t.callback,
      retry: t.retry,
    });
  });

  it('replaces headers as a whole and clears the body with null', async () => {
    const t = await create({ app: 'patching', name: 'headers' });
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, {
      callback: { headers: { 'x-only': '1' }, body: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.callback).toEqual({ ...t.callback, headers: { 'x-only': '1' }, body: null });
  });

  it('accepts an empty patch and changes nothing', async () => {
    const t = await create({ app: 'patching', name: 'empty' });
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, {});
    expect(res.status).toBe(200);
    const { updatedAt, ...rest } = res.body;
    const { updatedAt: _u, ...before } = t;
    expect(rest).toEqual(before);
  });

  it('rejects a rename to a name the app already uses with 409', async () => {
    await create({ app: 'patching', name: 'taken' });
    const t = await create({ app: 'patching', name: 'wants-taken' });
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, { name: 'taken' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('TIMER_NAME_TAKEN');
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body.name).toBe('wants-taken');
  });

  it('answers 404 TIMER_NOT_FOUND for an unknown id', async () => {
    const res = await call(app, 'PATCH', '/api/v1/timers/99999999', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('TIMER_NOT_FOUND');
  });

  it('re-plans the future runs of an active timer when its cron changes', async () => {
    const t = await create({ app: 'replan', cron: '0 * * * * *', timezone: 'UTC' }, fixedApp);
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`);
    // Every minute is dense: the near term only, 10:18 and 10:19 (the migrator's top-up plans the rest).
    expect(await pendingRowCount(t.id)).toBe(2);

    const res = await call(fixedApp, 'PATCH', `/api/v1/timers/${t.id}`, { cron: '0 0,30 * * * *' });
    expect(res.status).toBe(200);
    const { items } = await allTasks(t.id, 'upcoming=true', 500, fixedApp);
    expect(items.map((x: any) => x.runAt)).toEqual([
      '2030-01-01T10:30:00.000Z',
      '2030-01-01T11:00:00.000Z',
      '2030-01-01T11:30:00.000Z',
    ]);
    const dropped = Date.UTC(2030, 0, 1, 10, 18);
    expect(await inSlice(fixedCore, t.id, dropped)).toBe(false);
    expect(await inSlice(fixedCore, t.id, Date.UTC(2030, 0, 1, 10, 30))).toBe(true);
  });

  it('re-plans an active timer renamed when its cron has H: its H fields are seeded by its name', async () => {
    const t = await create(
      { app: 'replan', name: 'ledger-sync', cron: 'H * * * *', timezone: 'UTC' },
      fixedApp,
    );
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`);
    const res = await call(fixedApp, 'PATCH', `/api/v1/timers/${t.id}`, { name: 'ledger-sync-2' });
    expect(res.status).toBe(200);
    expect(res.body.resolvedCron).not.toBe(t.resolvedCron);
    const minute = Number(res.body.resolvedCron.split(' ')[0]);
    const { items } = await allTasks(t.id, 'upcoming=true', 500, fixedApp);
    expect(items.length).toBeGreaterThan(0);
    for (const x of items) expect(new Date(x.runAt).getUTCMinutes(), x.runAt).toBe(minute);
  });

  it('re-plans a change of jitter by occurrence: a run that has come is not planned again, one still ahead is even if its new time has passed', async () => {
    const N = Date.UTC(2030, 0, 1, 10, 1);
    let clock = N - 55_000;
    const jittery = createTestApp(createTestCore(stores, () => clock));
    /** A timer of `from` jitter, its old and new shift of N, and a new jitter for which `order` holds. */
    const jittered = async (
      from: number,
      tries: number[],
      order: (old: number, renewed: number) => boolean,
    ) => {
      const t = await create(
        { app: 'jitter', cron: '0 * * * * *', timezone: 'UTC', jitterMs: from },
        jittery,
      );
      await call(jittery, 'POST', `/api/v1/timers/${t.id}/enable`);
      const old = jitterOffset(t.id, N, from);
      const to = tries.find((j) => order(old, jitterOffset(t.id, N, j)));
      expect(to, `a jitter for timer ${t.id}`).toBeDefined();
      return { id: t.id as number, old, to: to as number, renewed: jitterOffset(t.id, N, to as number) };
    };
    const pending = async (id: number) => {
      const [rows] = await stores.database.pool.query(
        "SELECT run_at FROM tasks WHERE timer_id = ? AND status = 'pending' ORDER BY run_at",
        [id],
      );
      return (rows as Array<{ run_at: Date }>).map((r) => r.run_at.getTime());
    };
    const patch = async (id: number, jitterMs: number) =>
      expect((await call(jittery, 'PATCH', `/api/v1/timers/${id}`, { jitterMs })).status).toBe(200);
    const wider = [59_000, 58_000, 57_000, 56_000];

    // Its run at N came under the old jitter; the new one would put N's run ahead of now.
    const came = await jittered(1000, wider, (old, renewed) => renewed > old + 1);
    clock = N + came.old + 1;
    await patch(came.id, came.to);
    const cameRuns = await pending(came.id);
    expect(cameRuns).not.toContain(N + came.renewed);
    expect(cameRuns.filter((r) => r > clock)[0]).toBe(
      N + 60_000 + jitterOffset(came.id, N + 60_000, came.to),
    );

    // Its run at N is still ahead under the old jitter; the new one puts it behind now.
    const ahead = await jittered(59_000, [1000, 2000, 3000, 4000], (old, renewed) => renewed + 1 < old);
    clock = N + ahead.renewed + 1;
    await patch(ahead.id, ahead.to);
    const aheadRuns = await pending(ahead.id);
    expect(aheadRuns).toContain(N + ahead.renewed);
    expect(aheadRuns).not.toContain(N + ahead.old);
  });

  it('plans at once the run of a changed jitter whose new time passed before the near term the change plans', async () => {
    const N = Date.UTC(2030, 0, 1, 11, 0);
    let clock = N - 60_000;
    const jittery = createTestApp(createTestCore(stores, () => clock));
    // Every 10 minutes, jittered over all of it; cut to 5 minutes when the old run is still ahead
    // and the new one passed more than the near term's 3 minutes after its instant.
    let found: { id: number; renewed: number } | undefined;
    for (let i = 0; i < 20 && !found; i++) {
      const body = { app: 'jitter', cron: undefined, timezone: undefined, every: '10m', jitterMs: 600_000 };
      const t = await create(body, jittery);
      await call(jittery, 'POST', `/api/v1/timers/${t.id}/enable`);
      const old = jitterOffset(t.id, N, 600_000);
      const renewed = jitterOffset(t.id, N, 300_000);
      if (renewed > 200_000 && old > renewed + 2000) found = { id: t.id, renewed };
    }
    expect(found, 'a timer whose shifts fit').toBeDefined();
    const { id, renewed } = found!;
    clock = N + renewed + 1000;
    expect((await call(jittery, 'PATCH', `/api/v1/timers/${id}`, { jitterMs: 300_000 })).status).toBe(200);
    const [rows] = await stores.database.pool.query(
      "SELECT run_at FROM tasks WHERE timer_id = ? AND status = 'pending' ORDER BY run_at",
      [id],
    );
    expect((rows as Array<{ run_at: Date }>).map((r) => r.run_at.getTime())).toContain(N + renewed);
  });

  it('does not plan runs when the cron of an inactive timer changes', async () => {
    const t = await create({ app: 'replan', cron: '0 0 * * *' }, fixedApp);
    await call(fixedApp, 'PATCH', `/api/v1/timers/${t.id}`, { cron: EVERY_MINUTE });
    expect(await pendingRowCount(t.id)).toBe(0);
  });
});

describe('DELETE /api/v1/timers/:id', () => {
  it('answers 204, then 404 for the same id', async () => {
    const t = await create({ app: 'deleting' });
    const res = await call(app, 'DELETE', `/api/v1/timers/${t.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).status).toBe(404);
    const again = await call(app, 'DELETE', `/api/v1/timers/${t.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('TIMER_NOT_FOUND');
  });

  it('removes the runs of an active timer from MySQL and from its slices', async () => {
    const t = await create(
      { app: 'deleting', cron: EVERY_MINUTE, timezone: 'UTC', status: 'active' },
      fixedApp,
    );
    const firstRun = Date.UTC(2030, 0, 1, 10, 18);
    expect(await inSlice(fixedCore, t.id, firstRun)).toBe(true);
    expect((await call(fixedApp, 'DELETE', `/api/v1/timers/${t.id}`)).status).toBe(204);
    const [rows] = await stores.database.pool.query('SELECT COUNT(*) AS n FROM tasks WHERE timer_id = ?', [
      t.id,
    ]);
    expect(Number((rows as Array<{ n: number }>)[0]!.n)).toBe(0);
    expect(await inSlice(fixedCore, t.id, firstRun)).toBe(false);
  });

  it('frees the name for a new timer', async () => {
    const t = await create({ app: 'deleting', name: 'reused' });
    await call(app, 'DELETE', `/api/v1/timers/${t.id}`);
    const again = await create({ app: 'deleting', name: 'reused' });
    expect(again.id).not.toBe(t.id);
  });
});

describe('POST /api/v1/timers/:id/enable and /disable', () => {
  it('switches the status and is idempotent', async () => {
    const t = await create({ app: 'toggling' });
    const on = await call(app, 'POST', `/api/v1/timers/${t.id}/enable`);
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: t.id, status: 'active' });
    const onAgain = await call(app, 'POST', `/api/v1/timers/${t.id}/enable`);
    expect(onAgain.status).toBe(200);
    expect(onAgain.body).toEqual(on.body);

    const off = await call(app, 'POST', `/api/v1/timers/${t.id}/disable`);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: t.id, status: 'inactive' });
    const offAgain = await call(app, 'POST', `/api/v1/timers/${t.id}/disable`);
    expect(offAgain.status).toBe(200);
    expect(offAgain.body).toEqual(off.body);
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body.status).toBe('inactive');
  });

  it('answers disables sent together each for itself: each timer disabled once, a missing one 404 alone', async () => {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        create({ app: 'incident', name: `brake-${i}`, cron: EVERY_MINUTE }),
      ),
    );
    const enabled = await Promise.all(made.map((t) => call(app, 'POST', `/api/v1/timers/${t.id}/enable`)));
    expect(enabled.map((r) => (r.status === 200 ? r.status : JSON.stringify(r.body)))).toEqual(
      made.map(() => 200),
    );
    const versions = async () => {
      const [rows] = await stores.database.pool.query('SELECT id, version FROM timers WHERE app = ?', [
        'incident',
      ]);
      return new Map((rows as Array<{ id: number; version: number }>).map((r) => [Number(r.id), r.version]));
    };
    const before = await versions();
    // Sent at once, a timer named twice among them and one that does not exist.
    const ids = [...made.map((t) => t.id), made[0].id, 999_999_999];
    const answers = await Promise.all(
      ids.map((id) => call(app, 'POST', `/api/v1/timers/${id}/disable`, { note: 'INC-7: receiver down' })),
    );
    expect(answers.map((a) => a.status)).toEqual([...made.map(() => 200), 200, 404]);
    expect(answers.at(-1)?.body.error.code).toBe('TIMER_NOT_FOUND');
    for (const [i, t] of made.entries()) {
      expect(answers[i]?.body).toMatchObject({
        id: t.id,
        status: 'inactive',
        pausedNote: 'INC-7: receiver down',
      });
      // Disables sent together are answered before all their runs are stopped: soon after.
      await eventually(async () => (await pendingRowCount(t.id)) === 0, `timer ${t.id}'s runs stopped`);
    }
    // Each answer is the timer as stored, though the batch did not read it back.
    for (const [i, t] of made.entries())
      expect(answers[i]?.body).toEqual((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body);
    const after = await versions();
    expect(made.map((t) => (after.get(t.id) ?? 0) - (before.get(t.id) ?? 0))).toEqual(made.map(() => 1));
    const audit = await call(app, 'GET', '/api/v1/audit?app=incident&limit=100');
    const disables = audit.body.items.filter((e: any) => e.action === 'disable');
    // The timer named twice: disabled once (its version moved by one), its note set again.
    expect(disables.map((e: any) => e.timerId).sort()).toEqual([...made.map((t) => t.id), made[0].id].sort());
  });

  it('materialises future pending runs on enable, and cancels them on disable', async () => {
    const t = await create({ app: 'toggling', cron: EVERY_MINUTE, timezone: 'UTC' });
    const enabledAt = Date.now();
    expect((await call(app, 'POST', `/api/v1/timers/${t.id}/enable`)).status).toBe(200);

    const { items } = await allTasks(t.id, 'upcoming=true');
    // The near term: the rest of this minute and the next two (the migrator's top-up plans the rest).
    expect(items.length).toBeGreaterThanOrEqual(2);
    for (const task of items) {
      expect(task).toMatchObject({ timerId: t.id, status: 'pending', attempts: 0, firedAt: null });
      expect(Date.parse(task.runAt)).toBeGreaterThanOrEqual(enabledAt);
      expect(Date.parse(task.runAt) % 60_000).toBe(0);
      expect(task.id).toBe(`${t.id}_${Date.parse(task.runAt)}`);
    }
    expect(await inSlice(core, t.id, Date.parse(items[0].runAt))).toBe(true);

    const disabledAt = Date.now();
    expect((await call(app, 'POST', `/api/v1/timers/${t.id}/disable`)).status).toBe(200);
    const after = await allTasks(t.id, 'upcoming=true');
    // Runs already due when it was disabled are not the API's to cancel; none in the future is left.
    expect(after.items.filter((x: any) => Date.parse(x.runAt) >= disabledAt)).toEqual([]);
    expect(await inSlice(core, t.id, Date.parse(items[0].runAt))).toBe(false);
  });

  it('plans exactly the runs of the near term: to the end of the minute after next', async () => {
    const t = await create({ app: 'toggling', cron: '*/20 * * * * *', timezone: 'UTC' }, fixedApp);
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`);
    const { items } = await allTasks(t.id, 'upcoming=true', 500, fixedApp);
    expect(items.map((x: any) => x.runAt)).toEqual([
      '2030-01-01T10:17:40.000Z',
      '2030-01-01T10:18:00.000Z',
      '2030-01-01T10:18:20.000Z',
      '2030-01-01T10:18:40.000Z',
      '2030-01-01T10:19:00.000Z',
      '2030-01-01T10:19:20.000Z',
      '2030-01-01T10:19:40.000Z',
    ]);
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/disable`);
    expect(await pendingRowCount(t.id)).toBe(0);
    // Enabling again plans the same runs once (unique per timer and instant).
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`);
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`);
    expect(await pendingRowCount(t.id)).toBe(7);
  });

  it('stops the runs of a disable whose publisher died before it could, when an enable comes first', async () => {
    const t = await create({ app: 'toggling', cron: '*/20 * * * * *', timezone: 'UTC' }, fixedApp);
    await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`);
    // A backlog run due before the disable, and a run of the disabled stretch.
    const [owed, stretch] = [FIXED_NOW - 30_000, FIXED_NOW - 10_000];
    await new TaskRepository(stores.database.db, stores.database.pool).insertRuns(
      [owed, stretch].map((runAt) => ({ timerId: t.id, app: t.app, runAt, version: 1 })),
    );
    // A disable committed whose stop has not run yet: its process died after the commit.
    await stores.database.pool.query(
      "UPDATE timers SET status = 'inactive', paused_at = ?, version = version + 1 WHERE id = ?",
      [new Date(FIXED_NOW - 20_000), t.id],
    );
    expect((await call(fixedApp, 'POST', `/api/v1/timers/${t.id}/enable`)).status).toBe(200);
    // The enable's plan alone is pending: the stretch's run is gone, the backlog's recorded.
    expect(await pendingRowCount(t.id)).toBe(7);
    const [rows] = (await stores.database.pool.query(
      'SELECT run_at, status, error FROM tasks WHERE timer_id = ? AND run_at < ? ORDER BY run_at',
      [t.id, new Date(FIXED_NOW)],
    )) as any;
    expect(rows).toEqual([
      { run_at: new Date(owed), status: 'skipped', error: 'skipped: the timer was disabled' },
    ]);
  });
});

describe('GET /api/v1/timers/:id/tasks', () => {
  it('answers an empty page with nextCursor null for a new timer', async () => {
    const t = await create({ app: 'tasks' });
    const res = await call(app, 'GET', `/api/v1/timers/${t.id}/tasks`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], nextCursor: null });
  });

  it('answers 404 TIMER_NOT_FOUND for an unknown timer', async () => {
    const res = await call(app, 'GET', '/api/v1/timers/99999999/tasks');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('TIMER_NOT_FOUND');
  });

  it('rejects an unknown status filter with 400', async () => {
    const t = await create({ app: 'tasks' });
    const res = await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?status=pending,exploded`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('exploded');
  });

  it('rejects a bad time bound and a bad cursor with 400', async () => {
    const t = await create({ app: 'tasks' });
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?from=yesterday`)).status).toBe(400);
    const bad = await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?cursor=%25%25`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_CURSOR');
  });

  it('lists history by default (runs at or before now, newest first), paged without loss or repetition, and filters by time and status', async () => {
    const t = await create({ app: 'tasks', cron: EVERY_MINUTE, timezone: 'UTC', status: 'active' }, fixedApp);
    // The migrator plans the rest of the window: 10:18 … 11:59.
    const migrator = buildMigrationRunner(fixedCore, createLogger('silent'));
    await migrator.topUp();
    await migrator.topUpFurther();
    // At 10:17:30 all 102 planned runs are ahead: no history yet.
    expect((await call(fixedApp, 'GET', `/api/v1/timers/${t.id}/tasks`)).body).toEqual({
      items: [],
      nextCursor: null,
    });

    // At 12:00 they are all history.
    const everything = await allTasks(t.id, '', 500, laterApp);
    expect(everything.items).toHaveLength(102);
    const paged = await allTasks(t.id, '', 25, laterApp);
    expect(paged.pages).toBe(5);
    expect(paged.items).toEqual(everything.items);
    const times = paged.items.map((x: any) => Date.parse(x.runAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set(times).size).toBe(102);
    expect(paged.items.every((x: any) => x.trigger === 'schedule')).toBe(true);

    // [from, to): half-open.
    const window = await call(
      laterApp,
      'GET',
      `/api/v1/timers/${t.id}/tasks?from=2030-01-01T11:00:00Z&to=${Date.UTC(2030, 0, 1, 11, 3)}`,
    );
    expect(window.body.items.map((x: any) => x.runAt)).toEqual([
      '2030-01-01T11:02:00.000Z',
      '2030-01-01T11:01:00.000Z',
      '2030-01-01T11:00:00.000Z',
    ]);

    const done = await call(laterApp, 'GET', `/api/v1/timers/${t.id}/tasks?status=succeeded,failed`);
    expect(done.body).toEqual({ items: [], nextCursor: null });
  });

  it('lists the pending future runs soonest first with ?upcoming=true, paged', async () => {
    const t = await create(
      { app: 'upcoming', cron: '*/10 * * * * *', timezone: 'UTC', status: 'active' },
      fixedApp,
    );
    const upcoming = await allTasks(t.id, 'upcoming=true', 4, fixedApp);
    const times = upcoming.items.map((x: any) => Date.parse(x.runAt));
    // The near term planned at creation: 10:17:40 to the end of the minute after next.
    expect(times).toHaveLength(14);
    expect(upcoming.pages).toBe(4);
    expect(times[0]).toBe(Date.UTC(2030, 0, 1, 10, 17, 40));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('answers 400 for an unknown query parameter', async () => {
    const t = await create({ app: 'tasks' });
    const res = await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?stauts=failed`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('stauts');
  });
});

describe('GET /api/v1/timers/:id/preview', () => {
  it('lists the next fire times ascending, with the offset of the timer’s zone, 10 by default', async () => {
    const t = await create({ app: 'preview', cron: '0 30 2 * * *', timezone: 'Asia/Shanghai' }, fixedApp);
    const res = await call(fixedApp, 'GET', `/api/v1/timers/${t.id}/preview`);
    expect(res.status).toBe(200);
    expect(res.body.timerId).toBe(t.id);
    expect(res.body.timezone).toBe('Asia/Shanghai');
    expect(res.body.items).toHaveLength(10);
    // Now is 2030-01-01 18:17:30 in Shanghai: the first run is tomorrow at 02:30.
    expect(res.body.items.slice(0, 3)).toEqual([
      '2030-01-02T02:30:00.000+08:00',
      '2030-01-03T02:30:00.000+08:00',
      '2030-01-04T02:30:00.000+08:00',
    ]);
    const instants = res.body.items.map((s: string) => Date.parse(s));
    expect(instants).toEqual([...instants].sort((a: number, b: number) => a - b));
    expect(new Set(instants).size).toBe(10);
    for (const s of res.body.items) expect(s).toMatch(/T02:30:00\.000\+08:00$/);
  });

  it('honours count', async () => {
    const t = await create({ app: 'preview', cron: '*/20 * * * * *', timezone: 'UTC' }, fixedApp);
    const res = await call(fixedApp, 'GET', `/api/v1/timers/${t.id}/preview?count=4`);
    expect(res.body.items).toEqual([
      '2030-01-01T10:17:40.000+00:00',
      '2030-01-01T10:18:00.000+00:00',
      '2030-01-01T10:18:20.000+00:00',
      '2030-01-01T10:18:40.000+00:00',
    ]);
    expect((await call(fixedApp, 'GET', `/api/v1/timers/${t.id}/preview?count=100`)).body.items).toHaveLength(
      100,
    );
  });

  it('shows each run with the offset in force at that instant across a DST change', async () => {
    const t = await create({ app: 'preview', cron: '0 12 * 3 0', timezone: 'America/New_York' }, fixedApp);
    const res = await call(fixedApp, 'GET', `/api/v1/timers/${t.id}/preview?count=3`);
    // March 2030: Sundays 3 and 10 (DST starts on the 10th at 02:00), then the 17th.
    expect(res.body.items).toEqual([
      '2030-03-03T12:00:00.000-05:00',
      '2030-03-10T12:00:00.000-04:00',
      '2030-03-17T12:00:00.000-04:00',
    ]);
  });

  it('rejects count over 1000 or under 1 with 400', async () => {
    const t = await create({ app: 'preview' });
    for (const count of ['1001', '0', 'many']) {
      const res = await call(app, 'GET', `/api/v1/timers/${t.id}/preview?count=${count}`);
      expect(res.status, count).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});
