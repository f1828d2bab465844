import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, settledDeliveryReport, sleep, useCluster } from '../helpers/cluster.js';
import { Sink } from '../helpers/sink.js';

/**
 * One app's dead receiver must not delay another app. App `noisy` has 200
 * every-second timers whose receiver never answers (each call hangs to its timeout and
 * is retried); app `quiet` has 20 every-second timers with a healthy receiver. With a
 * small per-app in-flight limit, noisy's runs pile up in its own queue; quiet loses nothing.
 */
// The cluster's sink is quiet's healthy receiver; noisy's dead one is this file's own.
const e2e = useCluster('noisy', { env: { APP_MAX_IN_FLIGHT: '100' } });
let dead: Sink;

beforeAll(async () => {
  dead = await new Sink().start();
  dead.respond = () => ({ status: 200, hang: true });
});

afterAll(async () => {
  await dead?.stop();
});

async function timersOf(app: string, count: number, url: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, (_, j) =>
        apiCall(e2e.cluster.api(), 'POST', '/api/v1/timers', {
          app,
          name: `${app}-${i + j}`,
          cron: '* * * * * *',
          status: 'active',
          callback: { url, timeoutMs: 3000 },
          retry: { maxAttempts: 3, backoffMs: 500 },
        }),
      ),
    );
    ids.push(...batch.map((t) => t.id as number));
  }
  return ids;
}

describe('a noisy neighbour', () => {
  it('does not cost the quiet app a single run while its own calls hang', { timeout: 150_000 }, async () => {
    await timersOf('noisy', 200, dead.url());
    const quiet = await timersOf('quiet', 20, e2e.sink.url());
    const from = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    await sleep(30_000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 3000;
    const report = await settledDeliveryReport(e2e.sink, quiet, from, to, 10_000);
    console.log(
      `noisy-neighbour: noisy calls received ${dead.deliveries.length}; quiet expected=${report.expected} ` +
        `delivered=${report.delivered} missing=${report.missing.length} duplicates=${report.duplicates.length}`,
    );
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    // The limit held: about 100 of noisy's calls open at once, not the ~600 its timers
    // and retries would hold (the receiver learns of a cut-off call a moment after
    // xtimer has sent the next, hence the few extra).
    expect(dead.deliveries.length).toBeGreaterThan(100);
    expect(dead.maxOpen).toBeLessThanOrEqual(110);
  });
});
