import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/** Two processes with every role on the same stores: each run is delivered exactly once. */
let stores: TestStores;
let sink: Sink;
const procs: XtimerProcess[] = [];
let base: string;

beforeAll(async () => {
  stores = await createTestStores('twoprocs');
  sink = await new Sink().start();
  for (const name of ['a', 'b']) {
    const port = await freePort();
    if (name === 'a') base = `http://127.0.0.1:${port}`;
    procs.push(new XtimerProcess(name, { ...stores.env, PORT: String(port), LOG_LEVEL: 'info' }));
  }
  await Promise.all(procs.map((p) => p.started()));
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await sink?.stop();
  await stores?.cleanup();
});

describe('two processes running all roles', () => {
  it('deliver every run of 20 every-second timers exactly once', { timeout: 90_000 }, async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/api/v1/timers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          app: 'pair',
          name: `t${i}`,
          cron: '* * * * * *',
          status: 'active',
          callback: { url: sink.url() },
        }),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: number }).id);
    }
    const from = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const to = from + 15_000;
    await eventually(() => Date.now() > to + 3000, 'the observation window to pass', 30_000, 200);
    for (const id of ids) {
      await fetch(`${base}/api/v1/timers/${id}/disable`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
    }

    const counts = sink.countByTask();
    const missing: string[] = [];
    const doubled: string[] = [];
    for (const id of ids) {
      for (let t = from; t < to; t += 1000) {
        const n = counts.get(`${id}_${t}`) ?? 0;
        if (n === 0) missing.push(`${id}_${t}`);
        if (n > 1) doubled.push(`${id}_${t}`);
      }
    }
    expect({ missing, doubled }).toEqual({ missing: [], doubled: [] });
  });
});
