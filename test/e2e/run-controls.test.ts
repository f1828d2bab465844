import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall, settledRun, useCluster } from '../helpers/cluster.js';
import type { Delivery } from '../helpers/sink.js';
import { eventually } from '../helpers/stores.js';

/**
 * Run controls end to end, on two real processes with every role (so two executors) and a
 * real sink: run now, one-shots, retry of one run, overlap policies, failure
 * notifications, the validity window, and the default runs listing.
 */
/** The signing secret of app `controls`, which every timer here belongs to. */
let secret: string;
/** /flaky answers 500 until this is true. */
let flakyHeals = false;

const e2e = useCluster('runctl', {
  size: 2,
  respond: (d) => {
    if (d.path === '/fail') return { status: 500, body: 'broken' };
    if (d.path === '/flaky') return flakyHeals ? { status: 200, body: 'ok' } : { status: 500 };
    if (d.path.startsWith('/slow')) return { status: 200, body: 'done', delayMs: 2500 };
    return { status: 200, body: 'ok' };
  },
});

beforeAll(async () => {
  secret = (await apiCall(e2e.cluster.api(), 'POST', '/api/v1/apps', { app: 'controls' })).signingSecret;
});

/** A request whose 4xx answer the test wants to read (apiCall throws on them). */
async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e2e.cluster.api()}${path}`, {
    method,
    // Open mode takes changes only as JSON (docs/security.md).
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

let created = 0;
/** An active every-second timer of app `controls` calling the sink at `path`, unless `fields` say otherwise. */
async function createTimer(fields: Record<string, unknown>, path = '/ok', timeoutMs = 5000): Promise<any> {
  return apiCall(e2e.cluster.api(), 'POST', '/api/v1/timers', {
    app: 'controls',
    name: `t-${created++}`,
    cron: '* * * * * *',
    status: 'active',
    callback: { url: e2e.sink.url(path), timeoutMs },
    ...fields,
  });
}

const timerOf = (id: number) => apiCall(e2e.cluster.api(), 'GET', `/api/v1/timers/${id}`);
const deliveriesOf = (key: string) => e2e.sink.deliveries.filter((d) => d.taskId === key);
/** A whole second at least `ms` ahead, as an ISO time. */
const secondsAhead = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString();

/** Every run of a timer in MySQL, through the API: history up to now and what is still ahead. */
async function runsOf(id: number): Promise<any[]> {
  const past = await apiCall(e2e.cluster.api(), 'GET', `/api/v1/timers/${id}/tasks?limit=500`);
  const ahead = await apiCall(e2e.cluster.api(), 'GET', `/api/v1/timers/${id}/tasks?upcoming=true&limit=500`);
  return [...past.items, ...ahead.items];
}

/** The runs of a timer once `count` of them have settled (outcomes reach MySQL in batches). */
async function settledRuns(id: number, count: number): Promise<any[]> {
  let runs: any[] = [];
  await eventually(
    async () => {
      runs = await runsOf(id);
      return runs.filter((r) => r.status !== 'pending' && r.status !== 'running').length >= count;
    },
    `${count} runs settled`,
    20_000,
  );
  return runs;
}

describe('run now', () => {
  it('calls an inactive timer at once with X-Xtimer-Trigger: manual, and lists the run', async () => {
    const timer = await createTimer({ cron: '0 0 1 1 *', status: 'inactive' });
    const first = await send('POST', `/api/v1/timers/${timer.id}/trigger`);
    const second = await send('POST', `/api/v1/timers/${timer.id}/trigger`);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      id: `${timer.id}_${Date.parse(first.body.runAt)}`,
      timerId: timer.id,
      runAt: expect.any(String),
      status: 'pending',
      trigger: 'manual',
    });
    expect(second.body.id).not.toBe(first.body.id);

    for (const run of [first.body, second.body]) {
      expect(await settledRun(e2e.cluster.api(), run.id, 20_000)).toMatchObject({
        status: 'succeeded',
        trigger: 'manual',
        attempts: 1,
      });
      const [call, ...more] = deliveriesOf(run.id);
      expect(more).toEqual([]);
      expect(call!.headers['x-xtimer-trigger']).toBe('manual');
    }
    expect((await timerOf(timer.id)).status).toBe('inactive');
  });
});

describe('a one-shot timer', () => {
  it('fires once at its time with X-Xtimer-Trigger: schedule, then is completed for good', async () => {
    const at = secondsAhead(5000);
    const timer = await createTimer({ cron: undefined, at });
    expect(timer).toMatchObject({ cron: null, at, status: 'active' });
    const key = `${timer.id}_${Date.parse(at)}`;
    expect(await settledRun(e2e.cluster.api(), key, 30_000)).toMatchObject({
      status: 'succeeded',
      trigger: 'schedule',
    });
    await eventually(
      async () => (await timerOf(timer.id)).status === 'completed',
      'the timer completed',
      10_000,
    );

    expect(deliveriesOf(key)).toHaveLength(1);
    expect(deliveriesOf(key)[0]!.headers['x-xtimer-trigger']).toBe('schedule');
    expect(e2e.sink.forTimer(timer.id)).toHaveLength(1);
    expect((await apiCall(e2e.cluster.api(), 'GET', `/api/v1/timers/${timer.id}/preview`)).items).toEqual([]);
    const enable = await send('POST', `/api/v1/timers/${timer.id}/enable`);
    expect(enable.status).toBe(409);
    expect(enable.body.error.code).toBe('TIMER_COMPLETED');
  });

  it('refuses an `at` in the past, and both or neither of cron and at', async () => {
    const base = { app: 'controls', name: 'bad-one-shot', callback: { url: e2e.sink.url('/ok') } };
    const past = await send('POST', '/api/v1/timers', { ...base, at: '2020-01-01T00:00:00Z' });
    const both = await send('POST', '/api/v1/timers', {
      ...base,
      at: secondsAhead(60_000),
      cron: '* * * * *',
    });
    const neither = await send('POST', '/api/v1/timers', base);
    expect([past.status, both.status, neither.status]).toEqual([400, 400, 400]);
  });
});

describe('retry of one run', () => {
  it('sends a failed run again with the same task id, the next attempt and X-Xtimer-Trigger: retry', async () => {
    flakyHeals = false;
    const at = secondsAhead(3000);
    const timer = await createTimer({ cron: undefined, at, retry: { maxAttempts: 1 } }, '/flaky');
    const key = `${timer.id}_${Date.parse(at)}`;
    expect(await settledRun(e2e.cluster.api(), key, 30_000)).toMatchObject({
      status: 'failed',
      httpStatus: 500,
    });

    flakyHeals = true;
    const retried = await send('POST', `/api/v1/timers/${timer.id}/tasks/${key}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: key, status: 'pending', trigger: 'retry' });
    await eventually(() => deliveriesOf(key).length === 2, 'the retry delivered', 20_000);
    expect(await settledRun(e2e.cluster.api(), key, 20_000)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      trigger: 'retry',
    });
    const [, again] = deliveriesOf(key);
    expect(again).toMatchObject({ taskId: key, attempt: 2 });
    expect(again!.headers['x-xtimer-trigger']).toBe('retry');
    // The retry carried the answer it replaced: the run shows both attempts.
    const opened = await send('GET', `/api/v1/timers/${timer.id}/tasks/${key}`);
    expect(
      opened.body.attempts.map((a: { attempt: number; httpStatus: number }) => [a.attempt, a.httpStatus]),
    ).toEqual([
      [1, 500],
      [2, 200],
    ]);

    const notRetryable = await send('POST', `/api/v1/timers/${timer.id}/tasks/${key}/retry`);
    expect(notRetryable.status).toBe(409);
    expect(notRetryable.body.error.code).toBe('TASK_NOT_RETRYABLE');
    const unknown = await send('POST', `/api/v1/timers/${timer.id}/tasks/${timer.id}_1000/retry`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('TASK_NOT_FOUND');
  });
});

describe('overlap policies, with a 2.5 s receiver on an every-second timer across two executors', () => {
  /** Runs the timer for `seconds`, disables it, waits for its runs to settle, and returns calls and runs. */
  async function observe(overlapPolicy: 'skip' | 'buffer_one', seconds: number) {
    const timer = await createTimer({ overlapPolicy }, `/slow-${overlapPolicy}`);
    await eventually(
      () => e2e.sink.forTimer(timer.id).length >= seconds / 3,
      'calls made',
      seconds * 1000 + 15_000,
    );
    await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${timer.id}/disable`);
    let runs: any[] = [];
    await eventually(
      async () => {
        runs = (await runsOf(timer.id)).filter(
          (r) => r.status !== 'pending' || Date.parse(r.runAt) < Date.now(),
        );
        return runs.every((r) => r.status !== 'pending' && r.status !== 'running');
      },
      'every due run settled',
      30_000,
    );
    const calls = [...e2e.sink.forTimer(timer.id)].sort((a, b) => a.arrivedAt - b.arrivedAt);
    return { calls, runs };
  }

  /**
   * Every run called succeeded; every other one was skipped for the overlap (at least one),
   * or, when it still waited for its turn as the test disabled the timer, as inactive:
   * a run that waited goes by the timer as it is when its turn comes.
   */
  function expectCalledOrSkipped(runs: any[], called: Set<string>): void {
    for (const run of runs) {
      if (called.has(run.id)) expect(run.status).toBe('succeeded');
      else expect(run).toMatchObject({ status: 'skipped', error: expect.stringMatching(/overlap|inactive/) });
    }
    expect(runs.filter((r) => r.status === 'skipped' && r.error.includes('overlap')).length).toBeGreaterThan(
      0,
    );
  }

  /** No call starts before the previous one has been answered (2.5 s after it arrived). */
  function expectNoOverlap(calls: Delivery[]): void {
    for (let i = 1; i < calls.length; i++) {
      expect(calls[i]!.arrivedAt - calls[i - 1]!.arrivedAt).toBeGreaterThanOrEqual(2490);
    }
  }

  it('skip: a run due while its predecessor is in flight is recorded skipped (overlap), never called', async () => {
    const { calls, runs } = await observe('skip', 9);
    expectNoOverlap(calls);
    const called = new Set(calls.map((c) => c.taskId));
    expect(called.size).toBe(calls.length);
    expectCalledOrSkipped(runs, called);
  });

  it('buffer_one: one run waits and is called when the in-flight one ends; the rest are skipped', async () => {
    const { calls, runs } = await observe('buffer_one', 9);
    expectNoOverlap(calls);
    const called = new Set(calls.map((c) => c.taskId));
    expect(called.size).toBe(calls.length);
    expectCalledOrSkipped(runs, called);
    // A buffered run (due a second after its predecessor) waited for that one's 2.5 s answer.
    expect(calls.slice(1).some((c) => c.arrivedAt - c.scheduledAt >= 1400)).toBe(true);
  });
});

describe('failure notification', () => {
  it('posts one signed run.failed per failed run to the timer’s notify URL', async () => {
    const timer = await createTimer(
      { retry: { maxAttempts: 1 }, maxRuns: 3, notify: { url: e2e.sink.url('/notify'), on: ['failed'] } },
      '/fail',
    );
    const notices = () => e2e.sink.deliveries.filter((d) => d.path === '/notify');
    await eventually(() => notices().length >= 3, 'three notifications', 30_000);
    const runs = await settledRuns(timer.id, 3);
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);

    const events = notices().map((d) => {
      new Webhook(secret).verify(d.body, {
        'webhook-id': String(d.headers['webhook-id']),
        'webhook-timestamp': String(d.headers['webhook-timestamp']),
        'webhook-signature': String(d.headers['webhook-signature']),
      });
      return JSON.parse(d.body);
    });
    expect(events.map((e) => e.taskId).sort()).toEqual(runs.map((r) => r.id).sort());
    for (const e of events) {
      expect(e).toMatchObject({
        type: 'run.failed',
        timerId: timer.id,
        app: 'controls',
        attempts: 1,
        httpStatus: 500,
        runAt: expect.any(String),
      });
    }
  });

  it('falls back to the app’s default, set with PATCH /api/v1/apps/{app}', async () => {
    const app = await send('PATCH', '/api/v1/apps/controls', {
      notify: { url: e2e.sink.url('/app-notify') },
    });
    expect(app.status).toBe(200);
    expect(app.body.notify).toEqual({ url: e2e.sink.url('/app-notify'), on: ['failed', 'missed'] });
    const at = secondsAhead(3000);
    const timer = await createTimer({ cron: undefined, at, retry: { maxAttempts: 1 } }, '/fail');
    const key = `${timer.id}_${Date.parse(at)}`;
    await eventually(
      () => e2e.sink.deliveries.some((d) => d.path === '/app-notify' && JSON.parse(d.body).taskId === key),
      'the app-wide notification',
      30_000,
    );
    await send('PATCH', '/api/v1/apps/controls', { notify: null });
  });
});

describe('the validity window', () => {
  it('maxRuns: makes exactly that many runs, then the timer is completed', async () => {
    const timer = await createTimer({ maxRuns: 3 });
    await eventually(async () => (await timerOf(timer.id)).status === 'completed', 'completed', 30_000);
    const runs = await settledRuns(timer.id, 3);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(new Set(e2e.sink.forTimer(timer.id).map((d) => d.taskId)).size).toBe(3);
  });

  it('startAt and endAt: runs only in [startAt, endAt), then the timer is completed', async () => {
    const startAt = Date.parse(secondsAhead(4000));
    const endAt = startAt + 3000;
    const timer = await createTimer({
      startAt: new Date(startAt).toISOString(),
      endAt: new Date(endAt).toISOString(),
    });
    await eventually(async () => (await timerOf(timer.id)).status === 'completed', 'completed', 30_000);
    const runs = await settledRuns(timer.id, 3);
    expect(runs.map((r) => Date.parse(r.runAt)).sort()).toEqual([startAt, startAt + 1000, startAt + 2000]);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
  });
});

describe('the runs listing', () => {
  it('shows history by default, newest first, each run with its trigger', async () => {
    const timer = await createTimer({});
    await eventually(() => e2e.sink.forTimer(timer.id).length >= 3, 'three runs', 20_000);
    await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${timer.id}/trigger`);
    await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${timer.id}/disable`);
    const { items } = await apiCall(e2e.cluster.api(), 'GET', `/api/v1/timers/${timer.id}/tasks`);
    const times = items.map((r: any) => Date.parse(r.runAt));
    expect(times.every((t: number) => t <= Date.now())).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(items.some((r: any) => r.trigger === 'manual')).toBe(true);
    expect(items.some((r: any) => r.trigger === 'schedule')).toBe(true);
    const unknown = await send('GET', `/api/v1/timers/${timer.id}/tasks?upcomming=true`);
    expect(unknown.status).toBe(400);
  });
});
