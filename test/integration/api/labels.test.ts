import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../helpers/stores.js';

/**
 * Finding timers: labels (at most 20 key/value pairs) and a description (at
 * most 1 KiB) on every timer; the list filters by app, status, label=key:value
 * (repeatable) and q= (a name substring); a run's lateness is its first call's.
 */

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('labels');
  app = createTestApp(createTestCore(stores));
});
afterAll(async () => {
  await stores.cleanup();
});

async function create(overrides: Record<string, unknown>): Promise<any> {
  const res = await call(app, 'POST', '/api/v1/timers', timerBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const ids = (res: { body: { items: Array<{ id: number }> } }) => res.body.items.map((t) => t.id);

describe('labels and description', () => {
  it('stores them, shows them, and defaults to none', async () => {
    const t = await create({
      app: 'lab',
      labels: { team: 'payments', 'k8s.io/zone': 'eu-1' },
      description: 'Line one\nline two',
    });
    expect(t.labels).toEqual({ team: 'payments', 'k8s.io/zone': 'eu-1' });
    expect(t.description).toBe('Line one\nline two');
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body).toMatchObject({
      labels: t.labels,
      description: t.description,
    });
    const plain = await create({ app: 'lab' });
    expect(plain).toMatchObject({ labels: {}, description: null });
  });

  it('replaces the labels whole on PATCH, and null clears the description', async () => {
    const t = await create({ app: 'lab', labels: { a: '1', b: '2' }, description: 'x' });
    const res = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, { labels: { c: '3' }, description: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ labels: { c: '3' }, description: null });
    const cleared = await call(app, 'PATCH', `/api/v1/timers/${t.id}`, { labels: {} });
    expect(cleared.body.labels).toEqual({});
  });

  it.each([
    [
      '21 labels',
      { labels: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
      /at most 20 labels/,
    ],
    ['a key with a space', { labels: { 'bad key': 'v' } }, /label key "bad key"/],
    ['a key with a colon', { labels: { 'a:b': 'v' } }, /label key/],
    ['a key starting with a dot', { labels: { '.a': 'v' } }, /label key/],
    ['a value of 256 characters', { labels: { a: 'x'.repeat(256) } }, /at most 255/],
    ['a value with a NUL', { labels: { a: 'x\u0000' } }, /control characters/],
    ['a value that is not text', { labels: { a: 1 } }, /./],
    ['a description over 1 KiB in UTF-8', { description: '😀'.repeat(257) }, /at most 1024 bytes/],
    ['a description with an escape character', { description: 'a\u001b[31m' }, /control characters/],
  ])('refuses %s with 400, storing nothing', async (_what, fields, message) => {
    const before = (await call(app, 'GET', '/api/v1/timers?app=lab-bad')).body.items.length;
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'lab-bad', ...fields }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
    expect((await call(app, 'GET', '/api/v1/timers?app=lab-bad')).body.items.length).toBe(before);
  });

  it('takes a description of exactly 1 KiB', async () => {
    expect(
      (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'lab', description: 'é'.repeat(512) })))
        .status,
    ).toBe(201);
  });
});

describe('the list filters', () => {
  let a: any;
  let b: any;
  let c: any;
  beforeAll(async () => {
    a = await create({
      app: 'find',
      name: 'Nightly-Invoice',
      labels: { team: 'payments', env: 'prod' },
      status: 'active',
    });
    b = await create({ app: 'find', name: 'hourly-invoice', labels: { team: 'payments', env: 'dev' } });
    c = await create({ app: 'find', name: 'report_100%', labels: { team: 'search', note: 'a:b' } });
    await create({ app: 'find-other', name: 'nightly-invoice', labels: { team: 'payments', env: 'prod' } });
  });

  it('finds the timers carrying a label, and every one of several', async () => {
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&label=team:payments'))).toEqual([a.id, b.id]);
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&label=team:payments&label=env:prod'))).toEqual(
      [a.id],
    );
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&label=team:Payments'))).toEqual([]);
    // The value is everything after the first colon.
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&label=note:a:b'))).toEqual([c.id]);
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&label=env:prod&status=active'))).toEqual([
      a.id,
    ]);
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&label=env:prod&status=inactive'))).toEqual([]);
  });

  it('finds names holding q=, in any case, with % and _ matching themselves', async () => {
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&q=INVOICE'))).toEqual([a.id, b.id]);
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&q=100%25'))).toEqual([c.id]);
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&q=_'))).toEqual([c.id]);
    expect(ids(await call(app, 'GET', '/api/v1/timers?app=find&q=invoice&label=env:dev'))).toEqual([b.id]);
  });

  it('pages through a filtered list', async () => {
    const first = await call(app, 'GET', '/api/v1/timers?app=find&label=team:payments&limit=1');
    expect(ids(first)).toEqual([a.id]);
    const next = await call(
      app,
      'GET',
      `/api/v1/timers?app=find&label=team:payments&limit=1&cursor=${first.body.nextCursor}`,
    );
    expect(ids(next)).toEqual([b.id]);
    expect(next.body.nextCursor).toBeNull();
  });

  it.each(['label=nocolon', 'label=:v', 'label=bad key:v', 'label=team:a&label=team:b'])(
    'refuses %s with 400',
    async (q) => {
      const res = await call(app, 'GET', `/api/v1/timers?${q.replace(/ /g, '%20')}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^label: /);
    },
  );
});

describe("a run's lateness", () => {
  it('is its first call’s, with the latest attempt’s time beside it', async () => {
    const t = await create({ app: 'late' });
    const runAt = Date.now() - 60_000;
    await recordRun(stores.database, {
      timerId: t.id,
      app: 'late',
      runAt,
      status: 'failed',
      attempts: 3,
      firstLateMs: 1,
    });
    const [task] = (await call(app, 'GET', `/api/v1/timers/${t.id}/tasks`)).body.items;
    expect(task).toMatchObject({
      attempts: 3,
      latencyMs: 1,
      firstFiredAt: new Date(runAt + 1).toISOString(),
      firedAt: new Date(runAt + 3).toISOString(),
    });
  });
});
