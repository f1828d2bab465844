import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../../src/lib/concurrency-limit.js';
import { deferred } from '../../helpers/deferred.js';

describe('a concurrency limit', () => {
  it('runs at most `max` calls at once, the others in the order they came', async () => {
    const limit = new ConcurrencyLimit(2);
    const calls = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const results = calls.map((c, i) =>
      limit.run(async () => {
        started.push(i);
        await c.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    calls[1]!.resolve();
    await results[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    calls[0]!.resolve();
    calls[2]!.resolve();
    calls[3]!.resolve();
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('gives the turn on when a call fails, and passes the failure to its caller', async () => {
    const limit = new ConcurrencyLimit(1);
    const failing = limit.run(async () => {
      throw new Error('Deadlock found');
    });
    const next = limit.run(async () => 'ran');
    await expect(failing).rejects.toThrow('Deadlock found');
    expect(await next).toBe('ran');
  });
});
