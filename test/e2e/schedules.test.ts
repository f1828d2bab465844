import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * Issue 21 end to end: schedules cron cannot say (intervals, spread, pause), fired by a
 * real process into a real sink.
 */
let stores: TestStores;
let sink: Sink;
let proc: XtimerProcess;
let base: string;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
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
    callback: { url: sink.url() },
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

beforeAll(async () => {
  stores = await createTestStores('schedules');
  sink = await new Sink().start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = new XtimerProcess('all-roles', { ...stores.env, PORT: String(port), LOG_LEVEL: 'info' });
  await proc.started();
});

afterAll(async () => {
  await proc?.stop();
  await sink?.stop();
  await stores?.cleanup();
});

describe('interval timers', () => {
  it('fires an every-3s timer with an offset on epoch + offset + k·3s, once each', async () => {
    const timer = await createTimer({ every: '3s', offset: 'PT1.5S' });
    const got = await eventually(
      () => sink.forTimer(timer.id).length >= 4 && sink.forTimer(timer.id),
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
