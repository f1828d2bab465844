import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../api/app.js';
import { call, createTestApp, timerBody } from '../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../helpers/stores.js';

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('timersapi');
  app = createTestApp(createTestCore(stores));
});
afterAll(async () => {
  await stores.cleanup();
});

describe('timer API', () => {
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

  it('rejects a cron with a bad field, naming the field, and stores nothing', async () => {
    const res = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'cronbad', cron: '0 61 * * * *' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_CRON');
    expect(res.body.error.message).toContain('minute');
    const list = await call(app, 'GET', '/api/v1/timers?app=cronbad');
    expect(list.body.items).toEqual([]);
  });
});
