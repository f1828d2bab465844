import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { INTERNAL } from '../../src/services/timers/access.js';
import { useCluster } from '../helpers/cluster.js';
import { createTestCore, eventually } from '../helpers/stores.js';
import { testDraft } from '../helpers/timers.js';

/**
 * The SSRF guard at call time, end to end: with nothing configured (the
 * guard is on by default), a timer whose host name resolves to a loopback address (stored
 * past the create-time check) fails at its run with a clear, final TARGET_BLOCKED error,
 * and no connection ever reaches the receiver.
 */

const e2e = useCluster('guard', {
  // The test helpers allow the sink's 127.0.0.1; here nothing is.
  env: { CALLBACK_ALLOW_HOSTS: '' },
});
/** The services without the guard, as before CALLBACK_BLOCK_PRIVATE was turned on. */
let unguarded: Core;

beforeAll(() => {
  unguarded = createTestCore({
    ...e2e.stores,
    config: { ...e2e.stores.config, callbackBlockPrivate: false },
  });
});

afterAll(async () => {
  await unguarded?.queues.close();
});

describe('the SSRF guard at call time, by default', () => {
  it('fails a run whose host resolves to loopback, once and finally, without connecting', async () => {
    const timer = await unguarded.timers.definitions.create(
      INTERNAL,
      testDraft({
        app: 'guard',
        name: 'to-localhost',
        callback: {
          url: `http://localhost:${e2e.sink.port}/hook`,
          method: 'POST',
          headers: {},
          body: 'x',
          timeoutMs: 2000,
        },
        retry: { maxAttempts: 3, backoffMs: 100 },
      }),
    );
    const failed = await eventually(
      async () => {
        const [rows] = await e2e.stores.database.pool.query(
          "SELECT status, attempts, error FROM tasks WHERE timer_id = ? AND status = 'failed' ORDER BY run_at LIMIT 3",
          [timer.id],
        );
        const list = rows as Array<{ status: string; attempts: number; error: string }>;
        return list.length >= 2 && list;
      },
      'two failed runs',
      20_000,
    );
    for (const run of failed) {
      // Which address it resolved to is the log's to say, not the run's.
      expect(run.error).toMatch(/^TARGET_BLOCKED: callback host localhost resolves to a non-public address/);
      expect(run.error).not.toMatch(/127\.0\.0\.1|::1|loopback/);
      expect(run.attempts).toBe(1);
    }
    expect(e2e.sink.connections).toBe(0);
    expect(e2e.sink.deliveries).toHaveLength(0);
  });
});
