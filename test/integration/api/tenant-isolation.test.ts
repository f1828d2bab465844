import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/** One app's own long changes hold back none of another app's, each through its own key. */
const ADMIN = { authorization: 'Bearer admin-token-for-the-tenant-tests-0123456' };

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('tenants', {
    XTIMER_ADMIN_TOKEN: ADMIN.authorization.slice('Bearer '.length),
    XTIMER_SECRET_KEY: 'secret-key-for-the-tenant-tests-0123456789',
  });
  app = createTestApp(createTestCore(stores));
});
afterAll(async () => {
  await stores.cleanup();
});

async function keyOf(name: string): Promise<Record<string, string>> {
  const res = await call(app, 'POST', '/api/v1/apps', { app: name }, ADMIN);
  expect(res.status).toBe(201);
  return { authorization: `Bearer ${res.body.apiKey}` };
}

async function activeTimer(appName: string, name: string, key: Record<string, string>): Promise<number> {
  const res = await call(
    app,
    'POST',
    '/api/v1/timers',
    timerBody({ app: appName, name, cron: '0 0 * * *', status: 'active' }),
    key,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

describe('disables of two apps', () => {
  it("answer one app's while another app's timer is locked by a long change of its own", async () => {
    const alpha = await keyOf('lock-alpha');
    const beta = await keyOf('lock-beta');
    const [a1, a2] = [
      await activeTimer('lock-alpha', 'a1', alpha),
      await activeTimer('lock-alpha', 'a2', alpha),
    ];
    const b = await activeTimer('lock-beta', 'b', beta);
    // A long transaction of alpha's own holds its timer's row.
    const holder = await stores.database.pool.getConnection();
    await holder.query('START TRANSACTION');
    await holder.query('SELECT id FROM timers WHERE id = ? FOR UPDATE', [a1]);
    try {
      // Two batches of alpha's waiting on that row (a client retrying its disable), then beta's.
      const alphas: Array<ReturnType<typeof call>> = [];
      for (const id of [a1, a1, a2]) {
        alphas.push(call(app, 'POST', `/api/v1/timers/${id}/disable`, undefined, alpha));
        // Past the batch's 20 ms linger: each its own batch.
        await new Promise((r) => setTimeout(r, 100));
      }
      const answered = await call(app, 'POST', `/api/v1/timers/${b}/disable`, undefined, beta);
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body.status).toBe('inactive');
      // Still held when beta's was answered; then alpha's own go through.
      await holder.query('COMMIT');
      expect((await Promise.all(alphas)).map((r) => r.status)).toEqual([200, 200, 200]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });
});
