import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * Schedules cron cannot say (intervals, spread, pause), end to end: fired by a
 * real process into a real sink.
 */
const e2e = useCluster('schedules', {
  respond: (d) => (d.path.startsWith('/fail') ? { status: 500, body: 'no' } : { status: 200, body: 'ok' }),
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e2e.base}${path}`, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? (method === 'GET' ? null : '{}') : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createTimer(fields: Record<string, unknown>): Promise<any> {
  const res = await api('POST', '/api/v1/timers', {
    app: 'e2e',
    name: `t-${Math.random().toString(36).slice(2)}`,
    status: 'active',
    callback: { url: e2e.sink.url() },
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('interval timers', () => {
  it('fires an every-3s timer with an offset on epoch + offset + k·3s, once each', async () => {
    const timer = await createTimer({ every: '3s', offset: 'PT1.5S' });
    const got = await eventually(
      () => e2e.sink.forTimer(timer.id).length >= 4 && e2e.sink.forTimer(timer.id),
      '4 deliveries',
      20_000,
    );
    const times = got.map((d) => d.scheduledAt).sort((a, b) => a - b);
    for (const t of times) expect((t - 1500) % 3000).toBe(0);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(3000);
    for (const d of got) expect(d.taskId).toBe(`${timer.id}_${d.scheduledAt}`);
    expect(new Set(got.map((d) => d.taskId)).size).toBe(got.length);
    await api('DELETE', `/api/v1/timers/${timer.id}`);
  });
});

describe('pause with a reason', () => {
  it('shows the note, stops firing, and resumes by itself at until, once, as system', {
    timeout: 60_000,
  }, async () => {
    const timer = await createTimer({ cron: '* * * * * *' });
    await eventually(() => e2e.sink.forTimer(timer.id).length >= 1, 'a first delivery');
    const until = Math.ceil(Date.now() / 1000) * 1000 + 5000;
    const paused = await api('POST', `/api/v1/timers/${timer.id}/disable`, {
      note: 'receiver moving racks',
      until: new Date(until).toISOString(),
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body).toMatchObject({
      status: 'inactive',
      pausedNote: 'receiver moving racks',
      pausedUntil: new Date(until).toISOString(),
    });
    expect(Date.parse(paused.body.pausedAt)).toBeLessThanOrEqual(Date.now());
    const pausedAt = Date.parse(paused.body.pausedAt);

    const resumed = await eventually(
      async () => {
        const t = (await api('GET', `/api/v1/timers/${timer.id}`)).body;
        return t.status === 'active' && t;
      },
      'the timer resumed',
      15_000,
      200,
    );
    expect(resumed).toMatchObject({ pausedNote: null, pausedAt: null, pausedUntil: null });
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    const after = await eventually(
      () => e2e.sink.forTimer(timer.id).filter((d) => d.scheduledAt >= until).length >= 2,
      'deliveries after the pause',
      10_000,
    );
    expect(after).toBe(true);
    // Nothing due inside the pause was called (a second of slack for the run in flight at the disable).
    const during = e2e.sink
      .forTimer(timer.id)
      .filter((d) => d.scheduledAt > pausedAt + 1000 && d.scheduledAt < until);
    expect(during).toEqual([]);

    const audit = (await api('GET', `/api/v1/audit?timerId=${timer.id}`)).body.items as Array<any>;
    const resumes = audit.filter((e) => e.action === 'enable');
    expect(resumes.map((e) => e.actor)).toEqual(['system']);
    await api('DELETE', `/api/v1/timers/${timer.id}`);
  });

  it('auto-pauses after 3 failures in a row, with the note and a timer.paused notification', {
    timeout: 60_000,
  }, async () => {
    const timer = await createTimer({
      cron: '* * * * * *',
      callback: { url: e2e.sink.url('/fail') },
      retry: { maxAttempts: 1 },
      autoPause: { afterConsecutiveFailures: 3 },
      notify: { url: e2e.sink.url('/notify'), on: ['failed'] },
    });
    const t = await eventually(
      async () => {
        const got = (await api('GET', `/api/v1/timers/${timer.id}`)).body;
        return got.status === 'inactive' && got;
      },
      'the timer auto-paused',
      20_000,
      200,
    );
    expect(t.pausedNote).toBe('auto-paused after 3 consecutive failures');
    const notices = await eventually(
      () => {
        const found = e2e.sink.deliveries
          .filter((d) => d.path === '/notify')
          .map((d) => JSON.parse(d.body))
          .filter((e) => e.timerId === timer.id && e.type === 'timer.paused');
        return found.length > 0 && found;
      },
      'the timer.paused notification',
      20_000,
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ app: 'e2e', note: 'auto-paused after 3 consecutive failures' });
    const failedCalls = e2e.sink.forTimer(timer.id).length;
    expect(failedCalls).toBeGreaterThanOrEqual(3);
    // Paused: no more calls.
    await new Promise((r) => setTimeout(r, 3000));
    expect(e2e.sink.forTimer(timer.id).length).toBeLessThanOrEqual(failedCalls + 1);
    const audit = (await api('GET', `/api/v1/audit?timerId=${timer.id}`)).body.items as Array<any>;
    expect(audit.filter((e) => e.action === 'disable').map((e) => e.actor)).toEqual(['system']);
  });

  it('pauses and resumes all of an app’s timers with one note', async () => {
    const app = `e2e-app-${Math.random().toString(36).slice(2, 8)}`;
    const a = await createTimer({ app, cron: '0 0 * * * *' });
    const b = await createTimer({ app, cron: '0 0 * * * *' });
    const pause = await api('POST', `/api/v1/apps/${app}/pause`, { note: 'maintenance' });
    expect(pause.body).toEqual({ app, changed: 2 });
    for (const t of [a, b]) {
      expect((await api('GET', `/api/v1/timers/${t.id}`)).body).toMatchObject({
        status: 'inactive',
        pausedNote: 'maintenance',
      });
    }
    const resume = await api('POST', `/api/v1/apps/${app}/resume`);
    expect(resume.body).toEqual({ app, changed: 2 });
    expect((await api('GET', `/api/v1/timers/${a.id}`)).body).toMatchObject({
      status: 'active',
      pausedNote: null,
    });
  });
});

describe('calendars', () => {
  it('a calendar given the date of a run 10 s ahead stops that run: skipped (calendar), never called', {
    timeout: 60_000,
  }, async () => {
    const name = `closed-${Math.random().toString(36).slice(2, 8)}`;
    expect((await api('PUT', `/api/v1/apps/e2e/calendars/${name}`, { dates: ['2099-01-01'] })).status).toBe(
      201,
    );
    const timer = await createTimer({ every: '2s', skipCalendars: [name] });
    await eventually(() => e2e.sink.forTimer(timer.id).length >= 1, 'a first delivery', 10_000);
    const target = Math.ceil((Date.now() + 10_000) / 2000) * 2000;
    const date = new Date(target).toISOString().slice(0, 10);
    const putAt = Date.now();
    const put = await api('PUT', `/api/v1/apps/e2e/calendars/${name}`, { dates: [date] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // Runs due while the change was under way may go either way; once it has returned, none.
    const changedAt = Date.now();
    expect(changedAt + 1000, 'the change answered after the run it was to stop').toBeLessThan(target);
    await eventually(() => Date.now() > target + 3000, 'the run’s time passed', 20_000, 200);
    // Nothing on that date was called after the change (a second's slack for a call already leaving).
    const called = e2e.sink
      .forTimer(timer.id)
      .filter(
        (d) => d.scheduledAt > changedAt + 1000 && new Date(d.scheduledAt).toISOString().startsWith(date),
      );
    expect(called, `the change took ${changedAt - putAt} ms`).toEqual([]);
    const skipped = await api(
      'GET',
      `/api/v1/timers/${timer.id}/tasks?status=skipped&from=${target}&to=${target + 1}`,
    );
    expect(skipped.body.items).toEqual([
      expect.objectContaining({
        id: `${timer.id}_${target}`,
        status: 'skipped',
        error: `skipped: calendar ${name}`,
      }),
    ]);
    await api('DELETE', `/api/v1/timers/${timer.id}`);
    expect((await api('DELETE', `/api/v1/apps/e2e/calendars/${name}`)).status).toBe(204);
  });
});
