import { describe, expect, it } from 'vitest';
import type { Timer } from '../../src/domain/timer.js';
import { TimerCache } from '../../src/services/timer-cache.js';
import { testTimer } from '../helpers/timers.js';

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
});
