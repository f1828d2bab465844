import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../../api/app.js';
import { prepareCall } from '../../../../src/callback/callback-request.js';
import { type CallResult, HttpCaller } from '../../../../src/callback/http-caller.js';
import { HeaderCollector } from '../../../../src/callback/response-headers.js';
import type { Core } from '../../../../src/core.js';
import { ANSWER_LIMITS, withEarlier } from '../../../../src/domain/attempt-answers.js';
import { taskKey } from '../../../../src/domain/plan/task-key.js';
import type { Timer } from '../../../../src/domain/timer.js';
import type { RunToExecute } from '../../../../src/services/firing/run-execution.js';
import { attemptAnswerOf, outcomeOf } from '../../../../src/services/firing/settle/run-outcome.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { call, createTestApp, timerBody } from '../../../helpers/api.js';
import { Sink } from '../../../helpers/sink.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../../helpers/stores.js';

/**
 * A run opened through the API (GET /timers/{id}/tasks/{taskId}): the request its attempts
 * send, rebuilt from the timer's callback with credential values masked, and the answer
 * its latest attempt left, with byte sizes.
 */
let stores: TestStores;
let core: Core;
let app: App;
let sink: Sink;
const caller = new HttpCaller(4);

beforeAll(async () => {
  stores = await createTestStores('run-detail');
  core = createTestCore(stores);
  app = createTestApp(core);
  sink = await new Sink().start();
});
afterAll(async () => {
  await caller.close();
  await sink.stop();
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

/** Headers as the HTTP call keeps them (bounded, masked). */
function collected(headers: Record<string, string>): Record<string, string> {
  const c = new HeaderCollector();
  for (const [name, value] of Object.entries(headers)) c.add(name, value);
  return c.headers;
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
      // A row written before answers had a log: its columns alone, as its latest attempt's.
      headers: null,
      bodyBytes: null,
    });
    expect(res.body.attempts).toEqual([res.body.latest]);
    expect(res.body.attemptsNotKept).toBe(2);
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

  it("shows each attempt's answer with its headers: a 500 with a header, then a 200", async () => {
    // Two real calls to a receiver that fails once, their outcomes written as the executor
    // writes them (in flight, backing off, in flight again, settled) to the run's row.
    const created = await timerWithSecret();
    const runAt = Date.now() - 60_000;
    await recordRun(core.database, { timerId: created.id, app: created.app, runAt, status: 'pending' });
    const timer = (await new TimerRepository(core.database.db).findById(created.id)) as Timer;
    sink.respond = (d) =>
      d.attempt === 1
        ? {
            status: 500,
            body: 'cold start',
            headers: { 'X-Receiver-Note': 'warming', 'Set-Cookie': 'sid=s3cr3t' },
          }
        : { status: 200, body: '{"ok":true}', headers: { 'Content-Type': 'application/json' } };
    const repo = new TaskRepository(core.database.db, core.database.pool);
    const run = { timerId: created.id, runAt, slice: 'test' };
    const send = (attempt: number) =>
      caller.send({
        ...prepareCall(timer, taskKey(created.id, runAt), runAt, attempt, null, 'schedule'),
        origin: sink.url('').replace(/\/$/, ''),
        path: '/hook',
      });

    await repo.recordOutcomes([
      outcomeOf(run, 'running', 1, { leaseUntil: runAt + 60_000, sentAt: Date.now() }),
    ]);
    const first = await send(1);
    await repo.recordOutcomes([outcomeOf(run, 'running', 1, { result: first, leaseUntil: runAt + 60_000 })]);
    const retry = { ...run, afterAttempt: 1, earlier: withEarlier(undefined, attemptAnswerOf(1, first)) };
    await repo.recordOutcomes([
      outcomeOf(retry, 'running', 2, { leaseUntil: runAt + 60_000, sentAt: Date.now() }),
    ]);

    const taskId = `${created.id}_${runAt}`;
    const inFlight = await call(app, 'GET', `/api/v1/timers/${created.id}/tasks/${taskId}`);
    expect(inFlight.body.task).toMatchObject({ status: 'running', attempts: 2, httpStatus: null });
    expect(inFlight.body.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1]);

    const second = await send(2);
    await repo.recordOutcomes([outcomeOf(retry, 'succeeded', 2, { result: second })]);
    const res = await call(app, 'GET', `/api/v1/timers/${created.id}/tasks/${taskId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.attemptsNotKept).toBe(0);
    const [one, two] = res.body.attempts;
    expect(one).toMatchObject({
      attempt: 1,
      httpStatus: 500,
      output: 'cold start',
      outputBytes: 10,
      bodyBytes: 10,
      error: 'HTTP 500',
    });
    expect(one.headers).toMatchObject({ 'x-receiver-note': 'warming', 'set-cookie': '***' });
    expect(two).toMatchObject({
      attempt: 2,
      httpStatus: 200,
      output: '{"ok":true}',
      bodyBytes: 11,
      error: null,
    });
    expect(two.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(res.body.latest).toEqual(two);
    expect(JSON.stringify(res.body)).not.toContain('s3cr3t');
  });

  it('writes the answers at their bounds, however long their text escapes to, and keeps the last four', async () => {
    const created = await timerWithSecret();
    const runAt = Date.now() - 120_000;
    await recordRun(core.database, { timerId: created.id, app: created.app, runAt, status: 'pending' });
    // Control characters escape to six bytes each in JSON: the worst case of every bound.
    const worst = '\u0001'.repeat(2000);
    const headers = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x-h${i}`, worst]));
    const result = (n: number): CallResult => ({
      kind: 'response',
      status: 503,
      output: worst,
      retryAfter: null,
      sentAt: runAt + n,
      durationMs: n,
      headers: collected(headers),
      bodyBytes: 2000,
    });
    const repo = new TaskRepository(core.database.db, core.database.pool);
    let run: RunToExecute = { timerId: created.id, runAt, slice: 'test' };
    for (let n = 1; n <= 6; n++) {
      await repo.recordOutcomes([outcomeOf(run, n === 6 ? 'failed' : 'running', n, { result: result(n) })]);
      run = { ...run, afterAttempt: n, earlier: withEarlier(run.earlier, attemptAnswerOf(n, result(n))) };
    }
    const res = await call(app, 'GET', `/api/v1/timers/${created.id}/tasks/${created.id}_${runAt}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task).toMatchObject({ status: 'failed', attempts: 6 });
    expect(res.body.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([3, 4, 5, 6]);
    expect(res.body.attemptsNotKept).toBe(2);
    for (const a of res.body.attempts) {
      expect(a.output).toHaveLength(1024);
      const size = Object.entries(a.headers as Record<string, string>).reduce(
        (n, [k, v]) => n + k.length + v.length,
        0,
      );
      expect(size).toBeLessThanOrEqual(ANSWER_LIMITS.headersMaxBytes);
    }
  });
});
