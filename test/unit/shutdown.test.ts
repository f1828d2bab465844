import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { Shutdown } from '../../src/shutdown.js';

describe('Shutdown', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the steps newest first, giving a slow one the rest of the grace period', async () => {
    const done: string[] = [];
    const shutdown = new Shutdown(createLogger('silent'), 60_000);
    shutdown.add('connections', () => {
      done.push('connections');
    });
    // A call in flight that needs 45 s: far past any fixed per-step limit.
    shutdown.add(
      'executor',
      () =>
        new Promise<void>((r) =>
          setTimeout(() => {
            done.push('executor');
            r();
          }, 45_000),
        ),
    );
    const running = shutdown.run('SIGTERM');
    await vi.advanceTimersByTimeAsync(45_000);
    await running;
    expect(done).toEqual(['executor', 'connections']);
  });

  it('gives up on a step at the end of the grace period and still closes the rest', async () => {
    const done: string[] = [];
    const shutdown = new Shutdown(createLogger('silent'), 10_000);
    shutdown.add('connections', () => {
      done.push('connections');
    });
    shutdown.add('stuck', () => new Promise<void>(() => undefined));
    const running = shutdown.run('SIGTERM');
    await vi.advanceTimersByTimeAsync(10_000);
    await running;
    expect(done).toEqual(['connections']);
  });

  it('asks the steps not yet stopped what they abandon at a second signal', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', {}, { write: (l: string) => lines.push(l) });
    const shutdown = new Shutdown(logger, 60_000);
    shutdown.add('connections', () => undefined);
    shutdown.add(
      'executor',
      () => new Promise<void>(() => undefined),
      async () => ({ callsInFlight: 3, outcomesLost: 0 }),
    );
    void shutdown.run('SIGTERM');
    await vi.advanceTimersByTimeAsync(10);
    await shutdown.abandon('SIGINT');
    const said = lines.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith('second signal'));
    expect(said).toMatchObject({
      reason: 'SIGINT',
      during: 'executor',
      notStopped: ['executor', 'connections'],
      abandoned: { executor: { callsInFlight: 3, outcomesLost: 0 } },
    });
  });

  it("reports a thread's abandoned steps under their own names", async () => {
    const lines: string[] = [];
    const logger = createLogger('info', {}, { write: (l: string) => lines.push(l) });
    const shutdown = new Shutdown(logger, 60_000);
    shutdown.add('api', () => undefined);
    shutdown.addThread(
      'roles thread',
      () => new Promise<void>(() => undefined),
      async () => ({ executor: { callsInFlight: 1, outcomesLost: 0 }, trigger: { walks: 2 } }),
    );
    void shutdown.run('SIGTERM');
    await vi.advanceTimersByTimeAsync(10);
    await shutdown.abandon('SIGTERM');
    const said = lines.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith('second signal'));
    expect(said).toMatchObject({
      during: 'roles thread',
      notStopped: ['roles thread', 'api'],
      abandoned: { executor: { callsInFlight: 1, outcomesLost: 0 }, trigger: { walks: 2 } },
    });
    expect(said.abandoned['roles thread']).toBeUndefined();
  });
});
