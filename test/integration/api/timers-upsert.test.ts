import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Timers as code: PUT /api/v1/apps/{app}/timers/{name} creates (201) or
 * replaces (200) a timer by name; an equal definition changes nothing — no version bump
 * (ETag), no re-plan (the runs in MySQL), no audit entry. PATCH, PUT and DELETE honour
 * If-Match: a stale ETag is 412 VERSION_CONFLICT and nothing changes.
 */

/** 2030-01-01T10:17:30Z: an every-minute timer is planned to the end of the next migration window. */
const NOW = Date.UTC(2030, 0, 1, 10, 17, 30);

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('upsert');
  app = createTestApp(createTestCore(stores, () => NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

const definition = (overrides: Record<string, unknown> = {}) => ({
  cron: '0 * * * * *',
  timezone: 'UTC',
  status: 'active',
  callback: {
    url: 'http://127.0.0.1:9/hooks/run',
    headers: { 'content-type': 'application/json', 'x-b': '2' },
  },
  labels: { team: 'ops' },
  ...overrides,
});

const put = (name: string, body: unknown, headers: Record<string, string> = {}) =>
  call(app, 'PUT', `/api/v1/apps/billing/timers/${encodeURIComponent(name)}`, body, headers);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${sql}`, params);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

/** The timer's runs in MySQL, as run_at ms, in order. */
async function runsOf(id: number): Promise<number[]> {
  const [rows] = await stores.database.pool.query(
    "SELECT run_at FROM tasks WHERE timer_id = ? AND status = 'pending' ORDER BY run_at",
    [id],
  );
  return (rows as Array<{ run_at: Date }>).map((r) => r.run_at.getTime());
}

const auditCount = (id: number) => count('audit_log WHERE timer_id = ?', [id]);

describe('PUT /api/v1/apps/{app}/timers/{name}', () => {
  it('creates, then leaves an identical definition alone, then replaces a changed one and re-plans it', async () => {
    const created = await put('sync', definition());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      app: 'billing',
      name: 'sync',
      cron: '0 * * * * *',
      status: 'active',
    });
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.headers.get('location')).toBe(`/api/v1/timers/${created.body.id}`);
    const id = created.body.id as number;
    const planned = await runsOf(id);
    expect(planned.length).toBeGreaterThan(0);
    expect(planned.every((ms) => new Date(ms).getUTCSeconds() === 0)).toBe(true);
    const audited = await auditCount(id);
    expect(audited).toBe(1);

    // The same definition, its header map in another order: a no-op.
    const same = await put(
      'sync',
      definition({
        callback: {
          url: 'http://127.0.0.1:9/hooks/run',
          headers: { 'x-b': '2', 'content-type': 'application/json' },
        },
      }),
    );
    expect(same.status).toBe(200);
    expect(same.headers.get('etag')).toBe('"1"');
    expect(same.body).toEqual(created.body);
    expect(await runsOf(id)).toEqual(planned);
    expect(await auditCount(id)).toBe(audited);
    expect(await count('tasks WHERE timer_id = ?', [id])).toBe(planned.length);

    // A new cron: replaced, one version on, re-planned to the new schedule, audited.
    const changed = await put('sync', definition({ cron: '30 * * * * *' }));
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(changed.body).toMatchObject({ id, cron: '30 * * * * *', updatedAt: expect.any(String) });
    const replanned = await runsOf(id);
    expect(replanned.length).toBeGreaterThan(0);
    expect(replanned.every((ms) => new Date(ms).getUTCSeconds() === 30)).toBe(true);
    expect(await auditCount(id)).toBe(audited + 1);
    const [rows] = await stores.database.pool.query(
      "SELECT before_json, after_json FROM audit_log WHERE timer_id = ? AND action = 'update'",
      [id],
    );
    const entry = (rows as Array<{ before_json: string; after_json: string }>)[0]!;
    expect(JSON.parse(entry.before_json)).toEqual({ cron: '0 * * * * *' });
    expect(JSON.parse(entry.after_json)).toEqual({ cron: '30 * * * * *' });
  });

  it('replaces the whole definition: a field left out takes its default, and no status means inactive', async () => {
    const first = await put(
      'whole',
      definition({ description: 'kept?', retry: { maxAttempts: 5, backoffMs: 10 } }),
    );
    expect(first.status).toBe(201);
    expect(await runsOf(first.body.id)).not.toEqual([]);
    const { status: _status, ...rest } = definition();
    const second = await put('whole', rest);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      description: null,
      retry: { maxAttempts: 3, backoffMs: 1000 },
      status: 'inactive',
    });
    expect(await runsOf(first.body.id)).toEqual([]);
  });

  it('takes the name from the path: a different one in the body is refused', async () => {
    const res = await put('path-name', definition({ name: 'other' }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^name:/);
    expect(await count("timers WHERE name IN ('path-name', 'other')")).toBe(0);
    expect((await put('path-name', definition({ name: 'path-name' }))).status).toBe(201);
  });

  it('answers 400 for an invalid definition and stores nothing', async () => {
    const res = await put('bad', definition({ cron: 'not a cron' }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_CRON');
    expect(await count("timers WHERE name = 'bad'")).toBe(0);
  });
});

describe('ETag and If-Match', () => {
  it('carries the version as ETag on every single-timer answer', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', {
      app: 'billing',
      name: 'tagged',
      ...definition(),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.id;
    expect((await call(app, 'GET', `/api/v1/timers/${id}`)).headers.get('etag')).toBe('"1"');
    expect((await call(app, 'POST', `/api/v1/timers/${id}/disable`)).headers.get('etag')).toBe('"2"');
    expect((await call(app, 'POST', `/api/v1/timers/${id}/enable`)).headers.get('etag')).toBe('"3"');
    const patched = await call(
      app,
      'PATCH',
      `/api/v1/timers/${id}`,
      { description: 'x' },
      { 'if-match': '"3"' },
    );
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"4"');
  });

  it('refuses a stale If-Match on PATCH, PUT and DELETE with 412 VERSION_CONFLICT, changing nothing', async () => {
    const created = await put('contested', definition());
    const id = created.body.id as number;
    const runs = await runsOf(id);
    const audited = await auditCount(id);
    // Another editor changes it: version 2.
    const other = await put('contested', definition({ description: 'theirs' }), { 'if-match': '"1"' });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).toBe('"2"');
    const afterOther = await runsOf(id);

    const stale = { 'if-match': '"1"' };
    const patch = await call(app, 'PATCH', `/api/v1/timers/${id}`, { cron: '15 * * * * *' }, stale);
    const replace = await put('contested', definition({ cron: '15 * * * * *' }), stale);
    const remove = await call(app, 'DELETE', `/api/v1/timers/${id}`, undefined, stale);
    for (const res of [patch, replace, remove]) {
      expect(res.status, JSON.stringify(res.body)).toBe(412);
      expect(res.body.error.code).toBe('VERSION_CONFLICT');
    }
    const now = await call(app, 'GET', `/api/v1/timers/${id}`);
    expect(now.body).toMatchObject({ cron: '0 * * * * *', description: 'theirs' });
    expect(now.headers.get('etag')).toBe('"2"');
    expect(await runsOf(id)).toEqual(afterOther);
    expect(afterOther).toEqual(runs);
    expect(await auditCount(id)).toBe(audited + 1);

    // The current ETag (or any of a list holding it, or *) goes through.
    expect(
      (
        await call(
          app,
          'PATCH',
          `/api/v1/timers/${id}`,
          { description: 'mine' },
          { 'if-match': 'W/"7", "2"' },
        )
      ).status,
    ).toBe(200);
    expect((await call(app, 'DELETE', `/api/v1/timers/${id}`, undefined, { 'if-match': '*' })).status).toBe(
      204,
    );
  });

  it('refuses If-Match on a PUT of a timer that does not exist, creating nothing', async () => {
    const res = await put('absent', definition(), { 'if-match': '*' });
    expect(res.status).toBe(412);
    expect(res.body.error.code).toBe('VERSION_CONFLICT');
    expect(await count("timers WHERE name = 'absent'")).toBe(0);
  });
});

describe('PUT and apply with the schedule fields (every, offset, jitterMs, autoPause, skipCalendars, pause)', () => {
  const spread = definition({
    cron: undefined,
    every: '1m',
    offset: '10s',
    jitterMs: 30_000,
    autoPause: { afterConsecutiveFailures: 3 },
    skipCalendars: ['closed'],
  });
  const etagOf = async (id: number) => (await call(app, 'GET', `/api/v1/timers/${id}`)).headers.get('etag');
  /** A jittered run's instant depends on the timer's id: the runs in MySQL are the preview's. */
  async function expectPlannedAsPreviewed(id: number) {
    const preview = await call(app, 'GET', `/api/v1/timers/${id}/preview?count=3`);
    expect(preview.status).toBe(200);
    const runs = await runsOf(id);
    expect(runs.length).toBeGreaterThan(0);
    const previewed = (preview.body.items as string[]).map((s) => Date.parse(s));
    expect(runs.slice(0, 3)).toEqual(previewed.slice(0, Math.min(3, runs.length)));
    // Shifted: not all on the nominal grid (epoch + offset + k·every).
    expect(previewed.some((ms) => ms % 10_000 !== 0)).toBe(true);
  }

  it('PUT: CALENDAR_NOT_FOUND, a jittered first plan, and each field compared for unchanged', async () => {
    const missing = await put('spread', spread);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('CALENDAR_NOT_FOUND');
    const cal = await call(app, 'PUT', '/api/v1/apps/billing/calendars/closed', { dates: ['2030-12-25'] });
    expect(cal.status).toBe(201);

    const created = await put('spread', spread);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      every: '1m',
      offset: '10s',
      jitterMs: 30_000,
      autoPause: { afterConsecutiveFailures: 3 },
      skipCalendars: ['closed'],
    });
    const id = created.body.id as number;
    await expectPlannedAsPreviewed(id);

    const same = await put('spread', spread);
    expect(same.status).toBe(200);
    expect(same.headers.get('etag')).toBe('"1"');

    for (const [field, value] of [
      ['jitterMs', 10_000],
      ['offset', '20s'],
      ['every', '2m'],
      ['autoPause', null],
      ['skipCalendars', []],
    ] as const) {
      const before = await etagOf(id);
      const changed = await put('spread', { ...spread, [field]: value });
      expect(changed.status, field).toBe(200);
      expect(changed.body[field], field).toEqual(value);
      expect(changed.headers.get('etag'), field).not.toBe(before);
      expect((await put('spread', spread)).status).toBe(200);
    }
    await expectPlannedAsPreviewed(id);
  });

  it('PUT: inactive pauses the timer as a disable does, active again ends the pause', async () => {
    const paused = await put('spread', { ...spread, status: 'inactive' });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('inactive');
    expect(paused.body.pausedAt).not.toBeNull();
    expect(await runsOf(paused.body.id)).toEqual([]);
    const resumed = await put('spread', spread);
    expect(resumed.body).toMatchObject({ status: 'active', pausedAt: null, pausedNote: null });
    await expectPlannedAsPreviewed(resumed.body.id);
  });

  it("apply: the fields in an update's changes, CALENDAR_NOT_FOUND by index, a jittered create planned after its id", async () => {
    const applyBody = (timers: unknown[], dryRun = false) => ({ timers, dryRun });
    const apply = (body: unknown) => call(app, 'POST', '/api/v1/apps/billing/apply', body);
    const dry = await apply(applyBody([{ ...spread, name: 'spread', jitterMs: 5000, offset: '20s' }], true));
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const step = (dry.body.plan as Array<{ name: string; action: string; changes?: object }>).find(
      (s) => s.name === 'spread',
    );
    expect(step).toEqual({
      name: 'spread',
      action: 'update',
      changes: { jitterMs: { before: 30_000, after: 5000 }, offsetMs: { before: 10_000, after: 20_000 } },
    });

    const missing = await apply(applyBody([{ ...spread, name: 'spread-2', skipCalendars: ['nope'] }]));
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('CALENDAR_NOT_FOUND');
    expect(missing.body.error.message).toMatch(/^timers\.0: /);

    const done = await apply(
      applyBody([
        { ...spread, name: 'spread' },
        { ...spread, name: 'spread-2' },
      ]),
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.plan.map((s: { action: string }) => s.action)).toEqual(['unchanged', 'create']);
    const [created] = (await call(app, 'GET', '/api/v1/timers?app=billing&q=spread-2')).body.items;
    expect(created).toMatchObject({ name: 'spread-2', jitterMs: 30_000, skipCalendars: ['closed'] });
    await expectPlannedAsPreviewed(created.id);
  });
});
