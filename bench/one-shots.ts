/**
 * One-shot timers at scale: `count` timers, each firing once at a random
 * millisecond of the next `minutes` minutes, created through the API (soonest first, so
 * creation stays ahead of firing) while `cronTimers` every-second timers fire beside
 * them at the same rate. Reports missing and doubled one-shots, and the lateness of both.
 */
import { CpuMeter, pool, resetSink, type SinkStats, sinkStats, sleep } from './harness.js';
import { startXtimer } from './targets.js';

export interface OneShotsResult {
  count: number;
  minutes: number;
  createdPerSec: number;
  oneShots: SinkStats & { missing: number };
  cron: SinkStats & { timers: number; expected: number; missing: number };
  cpu: Record<string, number>;
}

/** How far ahead of now the first one-shot fires: creation gets a head start on firing. */
const LEAD_MS = 60_000;

export async function oneShotsBench(
  count: number,
  minutes: number,
  sinkPort: number,
): Promise<OneShotsResult> {
  await resetSink(sinkPort);
  const spanMs = minutes * 60_000;
  const cronTimers = Math.max(1, Math.round(count / (spanMs / 1000)));
  const target = await startXtimer(cronTimers, '* * * * * *', `http://127.0.0.1:${sinkPort}/cron`);
  try {
    const start = Date.now() + LEAD_MS;
    const ats = Array.from({ length: count }, () => start + Math.floor(Math.random() * spanMs)).sort(
      (a, b) => a - b,
    );
    const cpu = new CpuMeter(target.pids());
    cpu.start();
    const createdFrom = Date.now();
    let created = 0;
    const progress = setInterval(
      () => process.stdout.write(`  one-shots created: ${created}/${count}\n`),
      10_000,
    );
    try {
      await pool(ats, 32, async (at, i) => {
        await createOneShot(target.base, i, at, `http://127.0.0.1:${sinkPort}/once`);
        created++;
      });
    } finally {
      clearInterval(progress);
    }
    const createdPerSec = Math.round(count / ((Date.now() - createdFrom) / 1000));
    process.stdout.write(
      `  ${count} one-shots created at ${createdPerSec}/s; firing until ${new Date(start + spanMs).toISOString()}\n`,
    );
    await sleep(start + spanMs + 5000 - Date.now());
    const oneShots = await sinkStats(sinkPort, start, start + spanMs, {
      min: cronTimers + 1,
      max: Number.MAX_SAFE_INTEGER,
    });
    // The cron timers over whole seconds of the same stretch.
    const from = Math.ceil(start / 1000) * 1000;
    const to = Math.floor((start + spanMs) / 1000) * 1000;
    const cron = await sinkStats(sinkPort, from, to, { min: 1, max: cronTimers });
    const expected = (cronTimers * (to - from)) / 1000;
    return {
      count,
      minutes,
      createdPerSec,
      oneShots: { ...oneShots, missing: count - oneShots.delivered },
      cron: { ...cron, timers: cronTimers, expected, missing: expected - cron.delivered },
      cpu: cpu.stop(),
    };
  } finally {
    await target.stop();
  }
}

async function createOneShot(base: string, i: number, at: number, url: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    const res = await fetch(`${base}/api/v1/timers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        app: `once${i % 64}`,
        name: `o${i}`,
        at: new Date(at).toISOString(),
        status: 'active',
        callback: { url, method: 'POST' },
        retry: { maxAttempts: 1, backoffMs: 0 },
      }),
    });
    const text = await res.text();
    if (res.status === 201) return;
    const busy = (res.status === 409 && text.includes('APP_BUSY')) || res.status === 429 || res.status >= 500;
    if (!busy || tries >= 10) throw new Error(`one-shot create failed: ${res.status} ${text}`);
    await sleep(200 * tries);
  }
}
