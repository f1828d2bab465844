import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * The create and edit form for every kind of schedule, as HTML: one form makes and edits
 * cron, interval (every, offset) and one-shot (at) timers with their window, jitter,
 * calendars, auto-pause and policies; times are wall times in the timer's zone; an edit
 * shows what is stored and sends only what changed; each error sits beside its field
 * and nothing is saved. Its live preview follows the kind chosen.
 */

let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('timer-form');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

interface Visit {
  cookie: string;
  csrf: string;
}

async function visit(): Promise<Visit> {
  const res = await app.request('/dashboard/timers');
  const token = /xtimer_csrf=([A-Za-z0-9_-]{43});/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  expect(token).toBeDefined();
  return { cookie: `xtimer_csrf=${token}`, csrf: token! };
}

async function page(path: string) {
  const res = await app.request(path);
  return { status: res.status, text: await res.text() };
}

async function post(v: Visit, path: string, fields: Record<string, string | string[]>) {
  const body = new URLSearchParams({ csrf: v.csrf });
  for (const [k, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) body.append(k, one);
  const res = await app.request(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'http://localhost',
      cookie: v.cookie,
    },
    body: body.toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

const get = async (id: number) => (await call(app, 'GET', `/api/v1/timers/${id}`)).body;
const auditOf = async (id: number): Promise<any[]> =>
  (await call(app, 'GET', `/api/v1/audit?timerId=${id}`)).body.items;

async function count(table: string): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

/** A form post's fields for a valid timer of `kind`; override what a test is about. */
function fields(
  kind: 'cron' | 'every' | 'at',
  overrides: Record<string, string | string[]> = {},
): Record<string, string | string[]> {
  return {
    app: 'form-app',
    name: `form-${kind}-${Math.random().toString(36).slice(2, 8)}`,
    kind,
    cron: kind === 'cron' ? '0 */5 * * * *' : '',
    every: kind === 'every' ? '15m' : '',
    offset: '',
    at: kind === 'at' ? '2031-03-04 05:06:07' : '',
    timezone: 'Asia/Tokyo',
    jitterMs: '0',
    startAt: '',
    endAt: '',
    maxRuns: '',
    callbackUrl: 'http://127.0.0.1:9/hooks/form',
    callbackMethod: 'POST',
    callbackHeaders: '',
    callbackBody: '',
    callbackTimeoutMs: '',
    retryMaxAttempts: '3',
    retryBackoffMs: '1000',
    overlapPolicy: 'allow',
    misfirePolicy: 'fire_once',
    misfireThresholdMs: '60000',
    autoPause: '',
    notifyUrl: '',
    notifyOn: ['failed', 'missed'],
    labels: '',
    description: '',
    ...overrides,
  };
}

/** What the form's field `name` holds as rendered: an input's value, or a select's chosen option. */
function shown(html: string, name: string): string | undefined {
  const input = new RegExp(`<input type="[a-z]+" id="f-${name}" name="${name}" value="([^"]*)"`).exec(html);
  if (input) return input[1]!.replace(/&amp;/g, '&');
  const select = new RegExp(`<select id="f-${name}" name="${name}">([\\s\\S]*?)</select>`).exec(html);
  return select ? /<option value="([^"]*)" selected>/.exec(select[1]!)?.[1] : undefined;
}

/** The callback fields of a timer made with timerBody(), as the edit form posts them back. */
const AS_CREATED = {
  callbackUrl: 'http://127.0.0.1:9/hooks/run',
  callbackHeaders: 'content-type: application/json',
  callbackBody: '{"k":1}',
  callbackTimeoutMs: '5000',
};

const errorOf = (html: string, field: string) =>
  new RegExp(`data-error-for="${field}">([^<]*)<`)
    .exec(html)?.[1]
    ?.replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

beforeAll(async () => {
  for (const name of ['holidays', 'shutdowns']) {
    const res = await call(app, 'PUT', `/api/v1/apps/form-app/calendars/${name}`, { dates: ['2031-12-25'] });
    expect(res.status).toBeLessThan(300);
  }
});

describe('the form', () => {
  it('labels every field with the words people look for, and offers the three kinds', async () => {
    const { text } = await page('/dashboard/timers/new?app=form-app');
    for (const label of [
      'Cron',
      'Every',
      'Offset',
      'At',
      'Time zone',
      'Jitter',
      'Start at',
      'End at',
      'Max runs',
      'Calendars',
      'Auto-pause after',
    ]) {
      expect(text, label).toMatch(new RegExp(`<label (?:for|id)="[lf]-\\w+"[^>]*>${label}</label>`));
    }
    const kinds = /<select id="f-kind" name="kind">([\s\S]*?)<\/select>/.exec(text)?.[1] ?? '';
    expect([...kinds.matchAll(/<option value="(\w+)"[^>]*>([^<]*)</g)].map((m) => [m[1], m[2]])).toEqual([
      ['cron', 'Cron'],
      ['every', 'Every'],
      ['at', 'At'],
    ]);
    // The app's calendars to choose from, and the misfire policies.
    expect(text).toContain('name="skipCalendars" value="holidays"');
    expect(text).toContain('name="skipCalendars" value="shutdowns"');
    expect(text).toMatch(/<select id="f-misfirePolicy" name="misfirePolicy">/);
    // Attributes land as attributes: the zone box offers the zones, the times a sample.
    expect(text).toMatch(/id="f-timezone" name="timezone" value="UTC" list="zones"/);
    expect(text).toMatch(/id="f-at" name="at" value="" [^>]*placeholder="2026-12-01 09:00:00"/);
  });

  it('creates an interval timer with its offset, window, jitter, calendars, auto-pause and policies', async () => {
    const v = await visit();
    const res = await post(
      v,
      '/dashboard/timers/new',
      fields('every', {
        every: '1h30m',
        offset: '10m',
        jitterMs: '30000',
        startAt: '2031-01-02 03:04:05',
        endAt: '2032-01-01 00:00:00',
        maxRuns: '40',
        skipCalendars: ['holidays'],
        autoPause: '5',
        misfirePolicy: 'skip',
        misfireThresholdMs: '1000',
        overlapPolicy: 'buffer_one',
        notifyUrl: 'http://127.0.0.1:9/notify',
        notifyOn: ['failed'],
        retryMaxAttempts: '4',
      }),
    );
    expect(res.status, res.text.slice(0, 3000)).toBe(303);
    const id = Number(/^\/dashboard\/timers\/(\d+)\?done=created$/.exec(res.location!)?.[1]);
    expect(await get(id)).toMatchObject({
      cron: null,
      at: null,
      every: '90m',
      offset: '10m',
      jitterMs: 30000,
      timezone: 'Asia/Tokyo',
      startAt: '2031-01-01T18:04:05.000Z',
      endAt: '2031-12-31T15:00:00.000Z',
      maxRuns: 40,
      skipCalendars: ['holidays'],
      autoPause: { afterConsecutiveFailures: 5 },
      misfirePolicy: 'skip',
      misfireThresholdMs: 1000,
      overlapPolicy: 'buffer_one',
      notify: { url: 'http://127.0.0.1:9/notify', on: ['failed'] },
      retry: { maxAttempts: 4 },
    });
  });

  it("creates a one-shot at a wall time read in the timer's zone", async () => {
    const v = await visit();
    const res = await post(v, '/dashboard/timers/new', fields('at', { at: '2031-03-04 05:06:07' }));
    expect(res.status, res.text.slice(0, 3000)).toBe(303);
    const id = Number(/\/dashboard\/timers\/(\d+)/.exec(res.location!)?.[1]);
    expect(await get(id)).toMatchObject({
      cron: null,
      every: null,
      at: '2031-03-03T20:06:07.000Z',
      timezone: 'Asia/Tokyo',
    });
  });

  it('shows an interval timer’s stored values when editing, and sends only the offset it changed', async () => {
    const { body: created } = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({
        app: 'form-app',
        cron: null,
        every: '2h',
        offset: '30m',
        timezone: 'Europe/Berlin',
        jitterMs: 1500,
        startAt: '2031-06-01T08:00:00Z',
        maxRuns: 12,
        skipCalendars: ['shutdowns'],
        autoPause: { afterConsecutiveFailures: 3 },
        misfirePolicy: 'fire_all',
      }),
    );
    const id: number = created.id;
    const { text } = await page(`/dashboard/timers/${id}/edit`);
    expect(shown(text, 'kind')).toBe('every');
    expect(shown(text, 'every')).toBe('2h');
    expect(shown(text, 'offset')).toBe('30m');
    expect(shown(text, 'cron')).toBe('');
    expect(shown(text, 'jitterMs')).toBe('1500');
    expect(shown(text, 'startAt')).toBe('2031-06-01 10:00:00'); // CEST
    expect(shown(text, 'endAt')).toBe('');
    expect(shown(text, 'maxRuns')).toBe('12');
    expect(shown(text, 'autoPause')).toBe('3');
    expect(shown(text, 'misfirePolicy')).toBe('fire_all');
    expect(text).toContain('name="skipCalendars" value="shutdowns" checked');
    expect(text).not.toContain('name="skipCalendars" value="holidays" checked');
    // The stored schedule's next fires (the jitter shifts each by up to 1.5 s).
    const fires = [...text.matchAll(/<li>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3})? \+02:00<\/li>/g)];
    expect(fires, /<ul class="preview[\s\S]*?<\/ul>/.exec(text)?.[0]).toHaveLength(5);

    const form = Object.fromEntries(
      [...text.matchAll(/<input type="(?:text|url|number)" id="f-\w+" name="(\w+)" value="([^"]*)"/g)].map(
        (m) => [m[1]!, m[2]!],
      ),
    );
    const v = await visit();
    const res = await post(v, `/dashboard/timers/${id}/edit`, {
      ...form,
      kind: 'every',
      skipCalendars: ['shutdowns'],
      misfirePolicy: 'fire_all',
      notifyOn: ['failed', 'missed'],
      offset: '45m',
    });
    expect(res.status, res.text.slice(0, 3000)).toBe(303);
    expect(await get(id)).toMatchObject({ every: '2h', offset: '45m', startAt: '2031-06-01T08:00:00.000Z' });
    const [entry] = await auditOf(id);
    expect(entry.action).toBe('update');
    expect(Object.keys(entry.after)).toEqual(['offsetMs']);
  });

  it("shows a one-shot's time in its zone and changes it", async () => {
    const { body: created } = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'form-app', cron: null, at: '2031-05-06T07:08:09Z', timezone: 'America/New_York' }),
    );
    const id: number = created.id;
    const { text } = await page(`/dashboard/timers/${id}/edit`);
    expect(shown(text, 'kind')).toBe('at');
    expect(shown(text, 'at')).toBe('2031-05-06 03:08:09'); // EDT
    expect(text).toMatch(/<li>2031-05-06 03:08:09 -04:00<\/li>/);

    const v = await visit();
    const unchanged = await post(v, `/dashboard/timers/${id}/edit`, {
      ...fields('at', { name: created.name, timezone: 'America/New_York', at: '2031-05-06 03:08:09' }),
      ...AS_CREATED,
    });
    expect(unchanged.status, unchanged.text.slice(0, 3000)).toBe(303);
    expect((await auditOf(id)).map((e) => e.action)).toEqual(['create']);

    const moved = await post(v, `/dashboard/timers/${id}/edit`, {
      ...fields('at', { name: created.name, timezone: 'America/New_York', at: '2031-05-07 18:30' }),
      ...AS_CREATED,
    });
    expect(moved.status, moved.text.slice(0, 3000)).toBe(303);
    expect((await get(id)).at).toBe('2031-05-07T22:30:00.000Z');
    const [entry] = await auditOf(id);
    expect(Object.keys(entry.after)).toEqual(['at']);
  });

  it('turns a cron timer into a one-shot and back through the kind chooser', async () => {
    const { body: created } = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'form-app' }));
    const id: number = created.id;
    const base = { name: created.name, timezone: 'Asia/Shanghai', ...AS_CREATED };
    const v = await visit();
    const once = await post(v, `/dashboard/timers/${id}/edit`, {
      ...fields('at', { ...base, cron: '0 30 2 * * *', at: '2031-01-01 12:00:00' }),
    });
    expect(once.status, once.text.slice(0, 3000)).toBe(303);
    expect(await get(id)).toMatchObject({ cron: null, at: '2031-01-01T04:00:00.000Z' });
    const again = await post(v, `/dashboard/timers/${id}/edit`, {
      ...fields('cron', { ...base, cron: '0 0 6 * * *', at: '2031-01-01 12:00:00' }),
    });
    expect(again.status, again.text.slice(0, 3000)).toBe(303);
    expect(await get(id)).toMatchObject({ cron: '0 0 6 * * *', at: null });
  });
});

describe('an edit saved while someone else changed the timer', () => {
  it('saves nothing over the other change: the form shows the timer as it is now', async () => {
    const { body: created } = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'form-app' }));
    const id: number = created.id;
    const { text } = await page(`/dashboard/timers/${id}/edit`);
    const version = /<input type="hidden" name="version" value="(\d+)">/.exec(text)?.[1];
    expect(version).toMatch(/^\d+$/);
    // The app moves its callback through the API while the form is open.
    const moved = await call(app, 'PATCH', `/api/v1/timers/${id}`, {
      callback: { url: 'http://127.0.0.1:9/hooks/moved' },
    });
    expect(moved.status).toBe(200);
    const v = await visit();
    const res = await post(v, `/dashboard/timers/${id}/edit`, {
      ...fields('cron', { name: created.name, timezone: created.timezone, description: 'edited' }),
      ...AS_CREATED,
      version: version!,
    });
    expect(res.status).toBe(409);
    expect(errorOf(res.text, 'general')).toMatch(/changed since this form was opened/);
    expect(shown(res.text, 'callbackUrl')).toBe('http://127.0.0.1:9/hooks/moved');
    expect(await get(id)).toMatchObject({
      callback: { url: 'http://127.0.0.1:9/hooks/moved' },
      description: null,
    });
  });
});

describe('errors stay with their field', () => {
  it('places each error beside its field and saves nothing', async () => {
    const v = await visit();
    const before = await count('timers');
    const cases: Array<['cron' | 'every' | 'at', Record<string, string | string[]>, string, RegExp]> = [
      ['every', { every: 'fortnight' }, 'every', /./],
      ['every', { every: '' }, 'every', /give an interval/],
      ['every', { every: '10m', offset: '10m' }, 'offset', /shorter than every/],
      ['at', { at: '' }, 'at', /give the time/],
      ['at', { at: 'tomorrow-ish' }, 'at', /is not a time/],
      ['at', { at: '2001-01-01 00:00:00' }, 'at', /must be in the future/],
      ['cron', { startAt: '2031-02-01 00:00', endAt: '2031-01-01 00:00' }, 'endAt', /after startAt/],
      ['cron', { startAt: 'soon' }, 'startAt', /is not a time/],
      ['cron', { maxRuns: '0' }, 'maxRuns', />= 1/],
      ['cron', { jitterMs: '600000' }, 'jitterMs', /shortest gap/],
      ['cron', { skipCalendars: ['no-such'] }, 'skipCalendars', /no calendar no-such/],
      ['cron', { autoPause: '0' }, 'autoPause', />= 1/],
      ['cron', { misfireThresholdMs: '-1' }, 'misfireThresholdMs', />= 0/],
      ['cron', { timezone: 'Mars/Olympus' }, 'timezone', /not an IANA time zone/],
    ];
    for (const [kind, override, field, message] of cases) {
      const res = await post(v, '/dashboard/timers/new', fields(kind, override));
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(
        errorOf(res.text, field),
        `${field}: ${res.text.match(/data-error-for="[^"]+">[^<]*/g)}`,
      ).toMatch(message);
      expect(res.text).toContain('Nothing was saved');
      // What was typed comes back, with the kind still chosen.
      expect(shown(res.text, 'kind')).toBe(kind);
    }
    expect(await count('timers')).toBe(before);
  });

  it('keeps an edited one-shot as it was when its new time is in the past', async () => {
    const { body: created } = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'form-app', cron: null, at: '2031-05-06T07:08:09Z', timezone: 'UTC' }),
    );
    const v = await visit();
    const res = await post(v, `/dashboard/timers/${created.id}/edit`, {
      ...fields('at', { name: created.name, timezone: 'UTC', at: '2020-01-01 00:00:00' }),
    });
    expect(res.status).toBe(400);
    expect(errorOf(res.text, 'at')).toMatch(/must be in the future/);
    expect(shown(res.text, 'at')).toBe('2020-01-01 00:00:00');
    expect((await get(created.id)).at).toBe('2031-05-06T07:08:09.000Z');
  });
});

describe('the live preview', () => {
  const preview = async (q: Record<string, string>) =>
    call(app, 'GET', `/dashboard/timers/preview?${new URLSearchParams({ count: '5', ...q })}`);

  it("follows an interval, a one-shot and a window, reading times in the form's zone", async () => {
    const every = await preview({ every: '90m', offset: '15m', timezone: 'UTC' });
    expect(every.status).toBe(200);
    const gaps = every.body.items.map((t: string) => Date.parse(t)) as number[];
    expect(gaps).toHaveLength(5);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]! - gaps[i - 1]!).toBe(90 * 60_000);
    for (const t of gaps) expect((t - 15 * 60_000) % (90 * 60_000)).toBe(0);

    const once = await preview({ at: '2031-03-04 05:06:07', timezone: 'Asia/Tokyo' });
    expect(once.body).toEqual({ timezone: 'Asia/Tokyo', items: ['2031-03-04T05:06:07.000+09:00'] });
    const bad = await preview({ at: 'whenever', timezone: 'Asia/Tokyo' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/is not a time/);

    const windowed = await preview({
      cron: '0 0 9 * * *',
      timezone: 'Europe/Berlin',
      startAt: '2031-07-01 00:00',
      endAt: '2031-07-03 00:00',
    });
    expect(windowed.body.items).toEqual(['2031-07-01T09:00:00.000+02:00', '2031-07-02T09:00:00.000+02:00']);
  });

  it("lists an app's calendars for the form's boxes", async () => {
    expect((await call(app, 'GET', '/dashboard/timers/calendars?app=form-app')).body).toEqual({
      items: ['holidays', 'shutdowns'],
    });
    expect((await call(app, 'GET', '/dashboard/timers/calendars?app=nobody')).body).toEqual({ items: [] });
    expect((await call(app, 'GET', '/dashboard/timers/calendars?app=%20bad%20')).body).toEqual({ items: [] });
  });
});
