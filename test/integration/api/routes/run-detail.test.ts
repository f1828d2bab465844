import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { call, createTestApp, timerBody } from '../../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../../helpers/stores.js';

/**
 * A run opened through the API (GET /timers/{id}/tasks/{taskId}): the request its attempts
 * send, rebuilt from the timer's callback with credential values masked, and the answer
 * its latest attempt left, with byte sizes.
 */
let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('run-detail');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

async function timerWithSecret(): Promise<{ id: number; app: string }> {
  const res = await call(
    app,
    'POST',
    '/api/v1/timers',
    timerBody({
      status: 'inactive',
      callback: {
        url: 'http://127.0.0.1:9/hooks/run?tenant=7',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk_live_123', 'X-Team': 'pay' },
        body: '{"k":"é"}',
        timeoutMs: 5000,
      },
    }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('a run opened through the API', () => {
  it('shows the request with credentials masked and the latest answer with its sizes', async () => {
    const timer = await timerWithSecret();
    const runAt = Date.now() - 60_000;
    await recordRun(core.database, {
      timerId: timer.id,
      app: timer.app,
      runAt,
      status: 'failed',
      attempts: 3,
      output: 'upstream said ✗',
      error: 'HTTP 502',
      durationMs: 41,
    });
    const taskId = `${timer.id}_${runAt}`;
    const res = await call(app, 'GET', `/api/v1/timers/${timer.id}/tasks/${taskId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task).toMatchObject({ id: taskId, status: 'failed', trigger: 'schedule', attempts: 3 });
    expect(res.body.request).toMatchObject({
      method: 'POST',
      url: 'http://127.0.0.1:9/hooks/run?tenant=7',
      body: '{"k":"é"}',
      bodyBytes: 10,
      signed: false,
    });
    expect(res.body.request.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: '***',
      'x-team': 'pay',
      'x-xtimer-task-id': taskId,
      'x-xtimer-attempt': '3',
      'x-xtimer-trigger': 'schedule',
    });
    expect(JSON.stringify(res.body)).not.toContain('sk_live_123');
    expect(res.body.latest).toMatchObject({
      attempt: 3,
      httpStatus: null,
      output: 'upstream said ✗',
      outputBytes: 17,
      durationMs: 41,
      error: 'HTTP 502',
    });
  });

  it('has no answer for a run not called yet, and 404s a run the timer does not have', async () => {
    const timer = await timerWithSecret();
    const runAt = Date.now() + 3_600_000;
    await recordRun(core.database, { timerId: timer.id, app: timer.app, runAt, status: 'pending' });
    const res = await call(app, 'GET', `/api/v1/timers/${timer.id}/tasks/${timer.id}_${runAt}`);
    expect(res.status).toBe(200);
    expect(res.body.latest).toBeNull();
    const missing = await call(app, 'GET', `/api/v1/timers/${timer.id}/tasks/${timer.id}_${runAt + 1}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('TASK_NOT_FOUND');
  });
});
