import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * An all-roles process runs its roles in a thread of their own: its /healthz watches
 * that thread beat, and its /metrics say how long ago it last did.
 */
const e2e = useCluster('liveness');

describe('an all-roles process', () => {
  it("reports its roles thread's beats on /healthz and /metrics", async () => {
    const health = await fetch(`${e2e.cluster.api()}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', checks: { roles: 'ok' } });
    const silence = await eventually(async () => {
      const metrics = await (await fetch(`${e2e.cluster.api()}/metrics`)).text();
      return /^xtimer_thread_silent_seconds\{thread="roles"\} (\S+)$/m.exec(metrics)?.[1];
    }, 'the roles thread in xtimer_thread_silent_seconds');
    expect(Number(silence)).toBeGreaterThanOrEqual(0);
    expect(Number(silence)).toBeLessThan(5);
  });
});
