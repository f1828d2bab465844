import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * The firing pipeline end to end: one real process with every role, a real HTTP sink,
 * timers driven through the API.
 */
const e2e = useCluster('firing');

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e2e.base}${path}`, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createTimer(overrides: Record<string, unknown>): Promise<any> {
  const res = await api('POST', '/api/v1/timers', {
    app: 'e2e',
    name: `t-${Math.random().toString(36).slice(2)}`,
    cron: '* * * * * *',
    status: 'active',
    callback: { url: e2e.sink.url() },
    ...overrides,
  });
  expect(res.status).toBe(201);
  return res.body;
}

const wholeSecondAfter = (ms: number) => Math.floor(ms / 1000) * 1000 + 1000;

describe('firing', () => {
  it('fires an every-second timer every second with the documented headers and body', async () => {
    const timer = await createTimer({
      callback: {
        url: e2e.sink.url('/run?x=1'),
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Custom': 'abc' },
        body: '{"k": 1,  "spaced": true}',
      },
    });
    const got = await eventually(
      () => e2e.sink.forTimer(timer.id).length >= 5 && e2e.sink.forTimer(timer.id),
      '5 deliveries',
    );
    const times = got.map((d) => d.scheduledAt).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(1000);
    for (const d of got) {
      expect(d.scheduledAt % 1000).toBe(0);
      expect(d.taskId).toBe(`${timer.id}_${d.scheduledAt}`);
      expect(d.attempt).toBe(1);
      expect(d.method).toBe('POST');
      expect(d.path).toBe('/run?x=1');
      expect(d.headers['x-custom']).toBe('abc');
      expect(d.headers['content-type']).toBe('application/json');
      expect(d.body).toBe('{"k": 1,  "spaced": true}');
      expect(d.arrivedAt).toBeGreaterThanOrEqual(d.scheduledAt);
    }
    expect(new Set(got.map((d) => d.taskId)).size).toBe(got.length);

    const history = await eventually(async () => {
      const res = await api('GET', `/api/v1/timers/${timer.id}/tasks?status=succeeded&limit=100`);
      return res.body.items.length >= 5 && res.body.items;
    }, 'runs recorded as succeeded');
    for (const t of history) {
      expect(t).toMatchObject({
        timerId: timer.id,
        status: 'succeeded',
        attempts: 1,
        httpStatus: 200,
        output: 'ok',
        error: null,
      });
      expect(t.latencyMs).toBeGreaterThanOrEqual(0);
      expect(t.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(t.firedAt) - Date.parse(t.runAt)).toBe(t.latencyMs);
    }
    await api('DELETE', `/api/v1/timers/${timer.id}`);
  });

  it('stops firing within 1 s of a disable and resumes with the next run after an enable', async () => {
    const timer = await createTimer({});
    await eventually(() => e2e.sink.forTimer(timer.id).length >= 2, 'first deliveries');
    const disabledAt = Date.now();
    expect((await api('POST', `/api/v1/timers/${timer.id}/disable`)).body.status).toBe('inactive');
    // Three seconds with no delivery due after the disable (+1 s tolerance).
    const until = Date.now() + 3000;
    await eventually(() => Date.now() > until, 'three quiet seconds', 5000);
    expect(e2e.sink.forTimer(timer.id).filter((d) => d.scheduledAt > disabledAt + 1000)).toEqual([]);
    const pending = await api('GET', `/api/v1/timers/${timer.id}/tasks?status=pending`);
    expect(pending.body.items.filter((t: any) => Date.parse(t.runAt) > disabledAt + 1000)).toEqual([]);

    const enabledAt = Date.now();
    expect((await api('POST', `/api/v1/timers/${timer.id}/enable`)).body.status).toBe('active');
    const resumed = await eventually(
      () =>
        e2e.sink.forTimer(timer.id).filter((d) => d.scheduledAt >= enabledAt).length >= 2 &&
        e2e.sink.forTimer(timer.id),
      'deliveries after the enable',
    );
    // The first run after the enable is the next whole second.
    const firstAfter = Math.min(
      ...resumed.filter((d) => d.scheduledAt >= enabledAt).map((d) => d.scheduledAt),
    );
    expect(firstAfter).toBe(wholeSecondAfter(enabledAt - 1));
    await api('DELETE', `/api/v1/timers/${timer.id}`);
  });

  it('stops firing when the timer is deleted', async () => {
    const timer = await createTimer({});
    await eventually(() => e2e.sink.forTimer(timer.id).length >= 2, 'first deliveries');
    const deletedAt = Date.now();
    expect((await api('DELETE', `/api/v1/timers/${timer.id}`)).status).toBe(204);
    const until = Date.now() + 3000;
    await eventually(() => Date.now() > until, 'three quiet seconds', 5000);
    expect(e2e.sink.forTimer(timer.id).filter((d) => d.scheduledAt > deletedAt + 1000)).toEqual([]);
    expect((await api('GET', `/api/v1/timers/${timer.id}`)).status).toBe(404);
  });

  it('re-plans future runs when PATCH changes the cron', async () => {
    const timer = await createTimer({ cron: '*/2 * * * * *' });
    await eventually(() => e2e.sink.forTimer(timer.id).length >= 2, 'deliveries on even seconds');
    expect(e2e.sink.forTimer(timer.id).every((d) => (d.scheduledAt / 1000) % 2 === 0)).toBe(true);
    const patchedAt = Date.now();
    const res = await api('PATCH', `/api/v1/timers/${timer.id}`, { cron: '1-59/2 * * * * *' });
    expect(res.status).toBe(200);
    const odd = await eventually(() => {
      const after = e2e.sink.forTimer(timer.id).filter((d) => d.scheduledAt > patchedAt + 1000);
      return after.length >= 3 && after;
    }, 'deliveries after the patch');
    expect(odd.every((d) => (d.scheduledAt / 1000) % 2 === 1)).toBe(true);
    await api('DELETE', `/api/v1/timers/${timer.id}`);
  });

  it('retries a 503 and records the run succeeded with attempts = 2; a 400 is final', async () => {
    e2e.sink.respond = (d) => {
      if (d.path === '/flaky')
        return d.attempt === 1 ? { status: 503, body: 'busy' } : { status: 200, body: 'fine' };
      if (d.path === '/bad') return { status: 400, body: 'no such thing' };
      return { status: 200, body: 'ok' };
    };
    const flaky = await createTimer({
      callback: { url: e2e.sink.url('/flaky') },
      retry: { maxAttempts: 3, backoffMs: 100 },
    });
    const bad = await createTimer({
      callback: { url: e2e.sink.url('/bad') },
      retry: { maxAttempts: 3, backoffMs: 100 },
    });
    const first = await eventually(
      () => e2e.sink.forTimer(flaky.id).find((d) => d.attempt === 2),
      'a second attempt',
    );
    await eventually(() => e2e.sink.forTimer(bad.id).length > 0, 'a delivery to /bad');
    await api('POST', `/api/v1/timers/${flaky.id}/disable`);
    await api('POST', `/api/v1/timers/${bad.id}/disable`);

    const flakyRun = await eventually(async () => {
      const res = await api('GET', `/api/v1/timers/${flaky.id}/tasks?status=succeeded`);
      return res.body.items.find((t: any) => t.id === first.taskId);
    }, 'the retried run recorded');
    expect(flakyRun).toMatchObject({ status: 'succeeded', attempts: 2, httpStatus: 200, output: 'fine' });
    expect(
      e2e.sink
        .forTimer(flaky.id)
        .filter((d) => d.taskId === first.taskId)
        .map((d) => d.attempt),
    ).toEqual([1, 2]);

    const badTask = e2e.sink.forTimer(bad.id)[0]!.taskId;
    const badRun = await eventually(async () => {
      const res = await api('GET', `/api/v1/timers/${bad.id}/tasks?status=failed`);
      return res.body.items.find((t: any) => t.id === badTask);
    }, 'the 400 run recorded');
    expect(badRun).toMatchObject({ status: 'failed', attempts: 1, httpStatus: 400, output: 'no such thing' });
    expect(e2e.sink.forTimer(bad.id).filter((d) => d.taskId === badTask)).toHaveLength(1);
    e2e.sink.respond = () => ({ status: 200, body: 'ok' });
  });

  it('fires a timer in its own time zone at the wall-clock second its cron names', async () => {
    const timer = await createTimer({ cron: '*/3 * * * * *', timezone: 'Asia/Kolkata' });
    const got = await eventually(
      () => e2e.sink.forTimer(timer.id).length >= 2 && e2e.sink.forTimer(timer.id),
      'deliveries',
    );
    // Kolkata is UTC+05:30: whole seconds divisible by 3 stay so.
    expect(got.every((d) => (d.scheduledAt / 1000) % 3 === 0)).toBe(true);
    const preview = await api('GET', `/api/v1/timers/${timer.id}/preview?count=3`);
    expect(preview.body.items[0]).toMatch(/\+05:30$/);
    await api('DELETE', `/api/v1/timers/${timer.id}`);
  });
});
