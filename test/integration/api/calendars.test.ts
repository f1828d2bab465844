import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, eventually, type TestStores } from '../../helpers/stores.js';
import { testDraft } from '../../helpers/timers.js';

/** Calendars of dates timers skip. */

let stores: TestStores;
let app: App;
/** Thursday 2030-12-19, 10:00Z. */
const NOW = Date.UTC(2030, 11, 19, 10, 0, 0);
const DAY = 86_400_000;

beforeAll(async () => {
  stores = await createTestStores('calendars');
  app = createTestApp(createTestCore(stores, () => NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

const put = (name: string, body: unknown, appName = 'cal') =>
  call(app, 'PUT', `/api/v1/apps/${appName}/calendars/${name}`, body);
const create = async (overrides: Record<string, unknown>) => {
  const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'cal', ...overrides }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('calendars', () => {
  it('are created, replaced, read and listed', async () => {
    const created = await put('us-holidays', {
      dates: ['2030-12-25', '2031-01-01', '2030-12-25'],
      description: 'US',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      app: 'cal',
      name: 'us-holidays',
      dates: ['2030-12-25', '2031-01-01'],
    });
    const replaced = await put('us-holidays', { dates: ['2030-12-25'] });
    expect(replaced.status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/apps/cal/calendars/us-holidays')).body.dates).toEqual([
      '2030-12-25',
    ]);
    expect(
      (await call(app, 'GET', '/api/v1/apps/cal/calendars')).body.items.map((c: any) => c.name),
    ).toContain('us-holidays');
  });

  it.each([['2030-02-30'], ['2030-1-01'], ['tomorrow'], ['2030-12-25T00:00:00Z']])(
    'refuses the date %s',
    async (d) => {
      const res = await put('bad', { dates: [d] });
      expect(res.status).toBe(400);
    },
  );

  it('refuses more than 1,000 dates', async () => {
    const dates = Array.from({ length: 1001 }, (_, i) => dayOf(Date.UTC(2031, 0, 1) + i * DAY));
    expect((await put('big', { dates })).status).toBe(400);
  });

  it('a timer naming a calendar the app lacks gets 400 CALENDAR_NOT_FOUND', async () => {
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'cal', skipCalendars: ['nope'] }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('CALENDAR_NOT_FOUND');
  });

  it('leaves listed dates out of the preview, and explains them with explain=true', async () => {
    await put('xmas', { dates: ['2030-12-25'] });
    const t = await create({ cron: '0 0 9 * * *', timezone: 'America/New_York', skipCalendars: ['xmas'] });
    expect(t.skipCalendars).toEqual(['xmas']);
    const from = '2030-12-24T00:00:00Z';
    const plain = await call(app, 'GET', `/api/v1/timers/${t.id}/preview?count=2&from=${from}`);
    expect(plain.body.items).toEqual(['2030-12-24T09:00:00.000-05:00', '2030-12-26T09:00:00.000-05:00']);
    const explained = await call(
      app,
      'GET',
      `/api/v1/timers/${t.id}/preview?count=3&from=${from}&explain=true`,
    );
    expect(explained.body.items).toEqual([
      { at: '2030-12-24T09:00:00.000-05:00', skippedBy: null },
      { at: '2030-12-25T09:00:00.000-05:00', skippedBy: ['xmas'] },
      { at: '2030-12-26T09:00:00.000-05:00', skippedBy: null },
    ]);
  });

  it('reads an interval timer’s dates in UTC', async () => {
    await put('solstice', { dates: ['2030-12-21'] });
    const t = await create({
      cron: undefined,
      timezone: undefined,
      every: '12h',
      skipCalendars: ['solstice'],
    });
    const res = await call(app, 'GET', `/api/v1/timers/${t.id}/preview?count=3&from=2030-12-20T12:00:00Z`);
    expect(res.body.items).toEqual([
      '2030-12-20T12:00:00.000+00:00',
      '2030-12-22T00:00:00.000+00:00',
      '2030-12-22T12:00:00.000+00:00',
    ]);
  });

  it('a changed calendar re-plans its timers: planned runs on a new date become skipped (calendar)', async () => {
    await put('closures', { dates: ['2031-06-01'] });
    const t = await create({
      cron: '0 * * * * *',
      timezone: 'UTC',
      skipCalendars: ['closures'],
      status: 'active',
    });
    const pending = async () =>
      (await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?upcoming=true&limit=500`)).body.items as any[];
    const before = await pending();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((r) => r.runAt.startsWith('2030-12-19'))).toBe(true);
    // Today is now listed: every run planned from now on is skipped, none is pending.
    const changed = await put('closures', { dates: ['2030-12-19', '2031-06-01'] });
    expect(changed.status).toBe(200);
    expect(await pending()).toEqual([]);
    // History lists runs up to now; the skipped ones lie ahead: read them from MySQL.
    const [rows] = await stores.database.pool.query(
      "SELECT run_at AS runAt, error FROM tasks WHERE timer_id = ? AND status = 'skipped' AND run_at > ?",
      [t.id, new Date(NOW)],
    );
    const skipped = (rows as Array<{ runAt: Date; error: string }>).map((r) => ({
      runAt: r.runAt.toISOString(),
      error: r.error,
    }));
    for (const r of skipped) expect(r.error).toBe('skipped: calendar closures');
    // The preview agrees: the next run is tomorrow.
    const next = await call(app, 'GET', `/api/v1/timers/${t.id}/preview?count=1`);
    expect(next.body.items).toEqual(['2030-12-20T00:00:00.000+00:00']);
  });

  it('a PATCH naming a calendar takes its dates as committed when it commits, not as read before', async () => {
    await put('late-change', { dates: ['2031-03-01'] });
    const t = await create({});
    const skipDates = async () => {
      const [rows] = await stores.database.pool.query('SELECT skip_dates FROM timers WHERE id = ?', [t.id]);
      return JSON.parse((rows as Array<{ skip_dates: string }>)[0]!.skip_dates);
    };
    // A calendar PUT under way: its new dates written, not yet committed.
    const other = await stores.database.pool.getConnection();
    try {
      await other.query('BEGIN');
      await other.query(
        `UPDATE calendars SET dates = '["2031-03-02"]' WHERE app = 'cal' AND name = 'late-change'`,
      );
      const patched = call(app, 'PATCH', `/api/v1/timers/${t.id}`, { skipCalendars: ['late-change'] });
      await eventually(async () => {
        // Its locking read of the calendar, waiting for the PUT's lock.
        const [rows] = await stores.database.pool.query(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE id <> CONNECTION_ID() AND info LIKE '%FROM calendars%LOCK IN SHARE MODE'",
        );
        return Number((rows as Array<{ n: number }>)[0]!.n) > 0;
      }, 'the PATCH waiting for the calendar');
      await other.query('COMMIT');
      expect((await patched).status).toBe(200);
    } finally {
      // A wait that failed left the PUT's transaction open: its locks must not outlive the test.
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
    }
    expect(await skipDates()).toEqual({ '2031-03-02': ['late-change'] });
  });

  it('a create naming a calendar takes its dates as they are under the app’s mutex', async () => {
    await put('moved', { dates: ['2031-04-01'] });
    // Its dates as read before the mutex, then a PUT that committed first.
    const read = testDraft({
      app: 'cal',
      name: 'stale-dates',
      skipCalendars: ['moved'],
      skipDates: { '2031-04-01': ['moved'] },
    });
    await put('moved', { dates: ['2031-04-02'] });
    const core = createTestCore(stores, () => NOW);
    const { created } = await core.database.transaction((tx) =>
      core.timers.definitions.insertIn(tx, [read], undefined),
    );
    expect(created[0]!.skipDates).toEqual({ '2031-04-02': ['moved'] });
  });

  it('refuses to delete a calendar timers name, naming them; deletes it once unused', async () => {
    await put('temp', { dates: ['2031-02-02'] });
    const t = await create({ skipCalendars: ['temp'] });
    const refused = await call(app, 'DELETE', '/api/v1/apps/cal/calendars/temp');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CALENDAR_IN_USE');
    expect(refused.body.error.message).toContain(String(t.id));
    await call(app, 'PATCH', `/api/v1/timers/${t.id}`, { skipCalendars: [] });
    expect((await call(app, 'DELETE', '/api/v1/apps/cal/calendars/temp')).status).toBe(204);
    expect((await call(app, 'GET', '/api/v1/apps/cal/calendars/temp')).status).toBe(404);
  });
});
