import { describe, expect, it } from 'vitest';
import { apiCall, createTimers, settledRun, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * Receivers slow in their body, slow in their head, and slower than a claim's lease:
 * each call is cut off at its one deadline, each run is called once per attempt, and a
 * run whose call outlasts the lease is never called a second time.
 */
const e2e = useCluster('slowrecv', {
  respond: (d) => {
    if (d.path === '/trickle') return { status: 200, trickleMs: 200 };
    if (d.path === '/silent') return { status: 200, hang: true };
    if (d.path === '/slow-head') return { status: 200, body: 'late', delayMs: 2000 };
    if (d.path === '/past-lease') return { status: 200, body: 'very late', delayMs: 13_000 };
    return { status: 200, body: 'ok' };
  },
});

/** A timer firing once, at the next whole second + `inMs`; returns its run's key. */
async function oneShot(
  path: string,
  inMs: number,
  timeoutMs: number,
  retry = { maxAttempts: 1, backoffMs: 0 },
) {
  const at = new Date(Math.ceil((Date.now() + inMs) / 1000) * 1000);
  const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
  const [id] = await createTimers(e2e.cluster.api(), 1, {
    cron,
    retry,
    callback: { url: e2e.sink.url(path), timeoutMs },
  });
  return `${id}_${at.getTime()}`;
}

function attemptsDelivered(key: string): number[] {
  return e2e.sink.deliveries.filter((d) => d.taskId === key).map((d) => d.attempt);
}

describe('a receiver slow in its body', () => {
  it('is cut off at the call’s deadline, retried once per attempt, and recorded failed with the timeout', async () => {
    const key = await oneShot('/trickle', 3000, 1500, { maxAttempts: 2, backoffMs: 200 });
    const run = await settledRun(e2e.cluster.api(), key, 30_000);
    expect(run).toMatchObject({ status: 'failed', attempts: 2, error: 'timeout after 1500 ms' });
    expect(attemptsDelivered(key)).toEqual([1, 2]);
  });
});

describe('a receiver that never answers', () => {
  it('is cut off at the deadline like one that trickles', async () => {
    const key = await oneShot('/silent', 3000, 1000);
    expect(await settledRun(e2e.cluster.api(), key, 30_000)).toMatchObject({
      status: 'failed',
      error: 'timeout after 1000 ms',
    });
    expect(attemptsDelivered(key)).toEqual([1]);
  });
});

describe('a receiver slow in its head', () => {
  it('is called once per run and succeeds, every second, for 2 s answers', async () => {
    const [id] = await createTimers(e2e.cluster.api(), 1, { callback: { url: e2e.sink.url('/slow-head') } });
    await eventually(() => e2e.sink.forTimer(id!).length >= 8, 'eight runs called', 30_000);
    await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${id}/disable`);
    const keys = [...new Set(e2e.sink.forTimer(id!).map((d) => d.taskId))];
    for (const key of keys) expect(attemptsDelivered(key)).toEqual([1]);
    expect(await settledRun(e2e.cluster.api(), keys[0]!, 10_000)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('that answers after the claim lease (13 s > 10 s) is still its first holder’s: called once', async () => {
    const key = await oneShot('/past-lease', 3000, 20_000);
    expect(await settledRun(e2e.cluster.api(), key, 40_000)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
    expect(attemptsDelivered(key)).toEqual([1]);
  });
});
