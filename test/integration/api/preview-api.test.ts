import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/** Previews from a given instant, of saved timers and of schedules not saved yet; zone names. */

let stores: TestStores;
let app: App;
/** 2026-11-22T00:00:00Z: the New York examples lie a year ahead. */
const NOW = Date.UTC(2026, 10, 22);

beforeAll(async () => {
  stores = await createTestStores('previewapi');
  app = createTestApp(createTestCore(stores, () => NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

const preview = (query: Record<string, string>) =>
  call(app, 'GET', `/api/v1/preview?${new URLSearchParams(query)}`);

describe('the New York table of docs/schedules.md, "Time zones and daylight saving"', () => {
  const doc = readFileSync(new URL('../../../docs/schedules.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Time zones and daylight saving'));
  // | `cron` | day | local times | UTC instants |
  const rows = [...section.matchAll(/^\| `([^`]+)` +\| (\d{4}-\d{2}-\d{2}) \|([^|]+)\|([^|]+)\|$/gm)];
  const ABBREVIATION: Record<string, string> = { '-05:00': 'EST', '-04:00': 'EDT' };

  it('has the daily 02:30 and every-15-minutes rows for both days', () => {
    expect(rows.map((r) => `${r[1]} ${r[2]}`)).toEqual(
      expect.arrayContaining([
        '30 2 * * * 2027-03-14',
        '30 2 * * * 2027-11-07',
        '*/15 * * * * 2027-03-14',
        '*/15 * * * * 2027-11-07',
      ]),
    );
  });

  it.each(rows.map((r) => [r[1]!, r[2]!, r[3]!, r[4]!]))(
    '%s on %s is what the preview shows',
    async (cron, day, local, utc) => {
      const instants = utc.split(',').map((t) => `${day}T${t.trim().replace('Z', ':00.000Z')}`);
      const res = await preview({
        cron,
        timezone: 'America/New_York',
        from: instants[0]!,
        count: String(instants.length),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const items: string[] = res.body.items;
      expect(items.map((s) => new Date(s).toISOString())).toEqual(instants);
      // "01:30 EDT, 01:45 EDT (…)": each item's wall time and zone abbreviation, in order.
      const shown = local
        .replace(/\(.*\)/, '')
        .split(',')
        .map((s) => s.trim());
      expect(items.map((s) => `${s.slice(11, 16)} ${ABBREVIATION[s.slice(-6)]}`)).toEqual(shown);
    },
  );

  it('shows the curl example’s answer', async () => {
    const block = /curl -s '[^']*(\/api\/v1\/preview\?[^']+)'\n# (\{[^\n]*)\n# {2}([^\n]*)/.exec(section)!;
    const res = await call(app, 'GET', block[1]!);
    expect(res.body).toEqual(JSON.parse(`${block[2]}${block[3]}`));
  });
});

describe('GET /api/v1/timers/:id/preview with from', () => {
  it('lists the fire times at or after from, given as ISO-8601 or epoch ms, up to 1000', async () => {
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ cron: '*/15 * * * *', timezone: 'US/Eastern' }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    const from = Date.parse('2027-11-07T05:45:00Z');
    for (const given of ['2027-11-07T01:45:00-04:00', String(from)]) {
      const res = await call(
        app,
        'GET',
        `/api/v1/timers/${id}/preview?from=${encodeURIComponent(given)}&count=3`,
      );
      expect(res.body).toEqual({
        timerId: id,
        timezone: 'US/Eastern',
        items: [
          '2027-11-07T01:45:00.000-04:00',
          '2027-11-07T01:00:00.000-05:00',
          '2027-11-07T01:15:00.000-05:00',
        ],
      });
    }
    const many = await call(app, 'GET', `/api/v1/timers/${id}/preview?count=1000`);
    expect(many.body.items).toHaveLength(1000);
    // Without from: strictly after now.
    expect(many.body.items[0]).toBe('2026-11-21T19:15:00.000-05:00');
  });

  it('refuses a count over 1000 and a from that is not a time', async () => {
    const id = (await call(app, 'POST', '/api/v1/timers', timerBody())).body.id;
    for (const query of ['count=1001', 'count=0', 'from=soon', 'from=10000-01-01T00:00:00Z']) {
      const res = await call(app, 'GET', `/api/v1/timers/${id}/preview?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe('VALIDATION_FAILED');
    }
  });
});

describe('GET /api/v1/preview (a schedule not saved yet)', () => {
  it('answers the next fire times without a timerId, in UTC by default', async () => {
    const res = await preview({ cron: '0 0 * * *', count: '2' });
    expect(res.body).toEqual({
      timezone: 'UTC',
      items: ['2026-11-23T00:00:00.000+00:00', '2026-11-24T00:00:00.000+00:00'],
    });
  });

  it('reads a 6-field cron with seconds first', async () => {
    const res = await preview({ cron: '*/20 0 0 * * *', timezone: 'Asia/Kolkata', count: '3' });
    expect(res.body.items).toEqual([
      '2026-11-23T00:00:00.000+05:30',
      '2026-11-23T00:00:20.000+05:30',
      '2026-11-23T00:00:40.000+05:30',
    ]);
  });

  it.each([
    [{ cron: '0 61 * * *' }, 'INVALID_CRON'],
    [{ cron: '' }, 'INVALID_CRON'],
    [{}, 'INVALID_CRON'],
    [{ cron: '0 0 * * *', timezone: 'Mars/Olympus_Mons' }, 'INVALID_TIMEZONE'],
    [{ cron: '0 0 * * *', count: '1001' }, 'VALIDATION_FAILED'],
    [{ cron: '0 0 * * *', from: 'yesterday' }, 'VALIDATION_FAILED'],
  ])('refuses %j with 400 %s, as create does', async (query, code) => {
    const res = await preview(query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
  });
});

describe('time zone names', () => {
  it.each(['US/Eastern', 'Asia/Calcutta', 'Europe/Kyiv', 'Etc/GMT+5'])('accepts %s', async (timezone) => {
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ timezone }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.timezone).toBe(timezone);
  });

  it.each(['us/eastern', 'PST', 'EDT', '+05:00', 'America/Nowhere'])(
    'refuses %s with 400 INVALID_TIMEZONE naming it',
    async (timezone) => {
      const res = await call(app, 'POST', '/api/v1/timers', timerBody({ timezone }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_TIMEZONE');
      expect(res.body.error.message).toContain(JSON.stringify(timezone));
      const previewed = await preview({ cron: '0 0 * * *', timezone });
      expect(previewed.body.error).toMatchObject({
        code: 'INVALID_TIMEZONE',
        message: res.body.error.message,
      });
    },
  );
});
