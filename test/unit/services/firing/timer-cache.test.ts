import { describe, expect, it } from 'vitest';
import type { Timer } from '../../../../src/domain/timer.js';
import { TimerCache } from '../../../../src/services/firing/timer-cache.js';
import { testTimer } from '../../../helpers/timers.js';

describe('TimerCache', () => {
  it('does not keep a copy read before an invalidation that came while it was loading', async () => {
    let version = 1;
    let release!: () => void;
    const cache = new TimerCache(async () => {
      const read = testTimer({ version });
      await new Promise<void>((r) => (release = r));
      return [read];
    });
    const loading = cache.get(42);
    await new Promise((r) => setImmediate(r));
    // The change lands while the old copy is on its way back.
    version = 2;
    cache.invalidate(42);
    release();
    expect((await loading).stale).toBe(true);
    const next = cache.get(42);
    await new Promise((r) => setImmediate(r));
    release();
    expect((await next).timer?.version).toBe(2);
  });

  it('serves a cached copy until it is invalidated', async () => {
    let reads = 0;
    const cache = new TimerCache(async (): Promise<Timer[]> => {
      reads++;
      return [testTimer()];
    });
    await cache.get(42);
    await cache.get(42);
    expect(reads).toBe(1);
    cache.invalidate(42);
    await cache.get(42);
    expect(reads).toBe(2);
  });

  it('lets an invalidation reach every copy it handed out, those of concurrent loads too', async () => {
    // Two runs of one timer ask for it at once (a planner batch): each load makes a copy,
    // and the later one replaces the earlier in the map while both runs hold theirs.
    const cache = new TimerCache(async (): Promise<Timer[]> => [testTimer({ version: 1 })]);
    const [first, second] = await Promise.all([cache.get(42), cache.get(42)]);
    cache.invalidate(42);
    expect(first.stale).toBe(true);
    expect(second.stale).toBe(true);
  });
});

describe('TimerCache over the copies in Redis', () => {
  it('fires by a copy as new as the run asks for, without asking MySQL', async () => {
    let mysqlReads = 0;
    const cache = new TimerCache(
      async () => {
        mysqlReads++;
        return [testTimer({ version: 3 })];
      },
      undefined,
      undefined,
      async (ids) => ids.map(() => testTimer({ version: 2 })),
    );
    expect((await cache.get(42, 2)).timer?.version).toBe(2);
    expect(mysqlReads).toBe(0);
  });

  it('asks MySQL when the copy is older than the run, and serves the copy while MySQL is away', async () => {
    let mysqlUp = true;
    const cache = new TimerCache(
      async () => {
        if (!mysqlUp) throw new Error('connect ECONNREFUSED');
        return [testTimer({ version: 3 })];
      },
      undefined,
      undefined,
      async (ids) => ids.map(() => testTimer({ version: 2 })),
    );
    expect((await cache.get(42, 3)).timer?.version).toBe(3);
    cache.invalidate(42);
    mysqlUp = false;
    expect((await cache.get(42, 3)).timer?.version).toBe(2);
  });

  it('knows a deleted timer from its tombstone, and reads MySQL when there is no copy', async () => {
    const cache = new TimerCache(
      async (ids) => ids.map((id) => testTimer({ id })),
      undefined,
      undefined,
      async (ids) => ids.map((id) => (id === 1 ? null : undefined)),
    );
    expect((await cache.get(1)).timer).toBeNull();
    expect((await cache.get(2)).timer?.id).toBe(2);
  });
});
