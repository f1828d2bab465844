import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { call, createTestApp, timerBody } from '../../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * Bulk actions (POST /timers/bulk): pause with one note and until, resume, and run now over
 * a selection, each change audited under one batchId, the answer saying how many changed;
 * a selection naming a timer that does not exist changes nothing.
 */
let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('timers-bulk');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

async function timers(statuses: Array<'active' | 'inactive'>): Promise<number[]> {
  const ids: number[] = [];
  for (const status of statuses) {
    const res = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'bulk', status }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

describe('bulk actions over a selection of timers', () => {
  it('pauses the active ones with one note and until, as one audited batch', async () => {
    const [a, b, off] = (await timers(['active', 'active', 'inactive'])) as [number, number, number];
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const res = await call(app, 'POST', '/api/v1/timers/bulk', {
      action: 'pause',
      ids: [a, b, off, a],
      note: 'INC-9: receiver moving',
      until,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ action: 'pause', selected: 3, changed: 2, unchanged: [off] });
    for (const id of [a, b]) {
      const t = (await call(app, 'GET', `/api/v1/timers/${id}`)).body;
      expect(t).toMatchObject({
        status: 'inactive',
        pausedNote: 'INC-9: receiver moving',
        pausedUntil: until,
      });
    }
    const audit = await call(app, 'GET', `/api/v1/audit?batchId=${res.body.batchId}`);
    expect(audit.body.items.map((e: { timerId: number }) => e.timerId).sort()).toEqual([a, b].sort());
  });

  it('resumes the paused ones and runs the selection now', async () => {
    const [on, off] = (await timers(['active', 'inactive'])) as [number, number];
    const resumed = await call(app, 'POST', '/api/v1/timers/bulk', { action: 'resume', ids: [on, off] });
    expect(resumed.body).toMatchObject({ selected: 2, changed: 1, unchanged: [on] });
    expect((await call(app, 'GET', `/api/v1/timers/${off}`)).body.status).toBe('active');
    const ran = await call(app, 'POST', '/api/v1/timers/bulk', { action: 'trigger', ids: [on, off] });
    expect(ran.body).toMatchObject({ action: 'trigger', selected: 2, changed: 2, unchanged: [] });
    for (const id of [on, off]) {
      const runs = await call(
        app,
        'GET',
        `/api/v1/timers/${id}/tasks?status=pending,running,succeeded,failed`,
      );
      expect(runs.body.items.some((t: { trigger: string }) => t.trigger === 'manual')).toBe(true);
    }
  });

  it('changes nothing when a selected timer does not exist, and refuses an empty selection', async () => {
    const [on] = (await timers(['active'])) as [number];
    const res = await call(app, 'POST', '/api/v1/timers/bulk', { action: 'pause', ids: [on, 999_999_999] });
    expect(res.status).toBe(404);
    expect((await call(app, 'GET', `/api/v1/timers/${on}`)).body.status).toBe('active');
    const empty = await call(app, 'POST', '/api/v1/timers/bulk', { action: 'resume', ids: [] });
    expect(empty.status).toBe(400);
  });
});
