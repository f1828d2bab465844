import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../../src/lib/group-commit.js';
import { deferred } from '../../helpers/deferred.js';

/** Concurrent creates stored together (src/lib/group-commit.ts). */

/** A group whose batches each wait for the test; `batches` lists what each one took. */
function gated(maxInFlight: number, lingerMs = 0) {
  const batches: number[][] = [];
  const gates: Array<ReturnType<typeof deferred>> = [];
  const group = new GroupCommit<number, number>(
    async (items) => {
      batches.push(items);
      const gate = deferred();
      gates.push(gate);
      await gate.promise;
      return items.map((value) => ({ status: 'fulfilled', value }));
    },
    100,
    maxInFlight,
    lingerMs,
  );
  return { group, batches, gates };
}

describe('GroupCommit', () => {
  it('sends an item at once when idle, and what arrives meanwhile together in the next batch', async () => {
    const { group, batches, gates } = gated(1);
    const first = group.add(1);
    const rest = [2, 3, 4].map((i) => group.add(i));
    expect(batches).toEqual([[1]]);
    gates[0]!.resolve();
    expect(await first).toBe(1);
    await Promise.resolve();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gates[1]!.resolve();
    expect(await Promise.all(rest)).toEqual([2, 3, 4]);
  });

  it('keeps at most maxInFlight batches of at most maxBatch items under way', async () => {
    let inFlight = 0;
    let most = 0;
    const sizes: number[] = [];
    const group = new GroupCommit<number, number>(
      async (items) => {
        inFlight++;
        most = Math.max(most, inFlight);
        sizes.push(items.length);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return items.map((value) => ({ status: 'fulfilled', value }));
      },
      3,
      2,
    );
    const out = await Promise.all(Array.from({ length: 20 }, (_, i) => group.add(i)));
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(2);
    expect(Math.max(...sizes)).toBe(3);
  });

  describe('with a linger', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('fills a free slot for lingerMs while a batch is under way, instead of sending each arrival alone', async () => {
      vi.useFakeTimers();
      const { group, batches } = gated(2, 20);
      void group.add(1);
      expect(batches).toEqual([[1]]);
      // A steady stream: without the linger each of these would take the free slot alone.
      for (const i of [2, 3, 4]) {
        void group.add(i);
        await vi.advanceTimersByTimeAsync(5);
      }
      expect(batches).toEqual([[1]]);
      expect(group.idle).toBe(false);
      await vi.advanceTimersByTimeAsync(5);
      expect(batches).toEqual([[1], [2, 3, 4]]);
    });

    it('sends at once what waits when the batch under way ends first, and a lone item at once', async () => {
      vi.useFakeTimers();
      const { group, batches, gates } = gated(2, 20);
      expect(group.idle).toBe(true);
      const first = group.add(1);
      const second = group.add(2);
      gates[0]!.resolve();
      expect(await first).toBe(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(batches).toEqual([[1], [2]]);
      gates[1]!.resolve();
      expect(await second).toBe(2);
      // The linger set for the second item must not start an empty batch later.
      await vi.advanceTimersByTimeAsync(50);
      expect(batches).toEqual([[1], [2]]);
    });
  });

  it('fails only the items the batch says failed, and every item when the batch itself fails', async () => {
    const settling = new GroupCommit<number, number>(
      async (items) =>
        items.map((i) =>
          i % 2 === 0
            ? { status: 'fulfilled', value: i }
            : { status: 'rejected', reason: new Error(`odd ${i}`) },
        ),
      10,
      1,
    );
    const results = await Promise.allSettled([0, 1, 2].map((i) => settling.add(i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);

    const failing = new GroupCommit<number, number>(
      async () => {
        throw new Error('store down');
      },
      10,
      1,
    );
    const all = await Promise.allSettled([0, 1].map((i) => failing.add(i)));
    expect(all.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['store down', 'store down']);
  });
});
