import { describe, expect, it } from 'vitest';
import { LocalKeyQueue } from '../../../src/lib/local-key-queue.js';

const far = () => Date.now() + 60_000;

describe('LocalKeyQueue: one caller per key at a time, first come first served', () => {
  it('lets callers of one key in one after another, in the order they came', async () => {
    const queue = new LocalKeyQueue();
    const order: string[] = [];
    let inside = 0;
    await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (name) => {
        const leave = await queue.enter(['app'], far());
        inside++;
        expect(inside).toBe(1);
        order.push(name);
        await new Promise((r) => setTimeout(r, 5));
        inside--;
        leave?.();
      }),
    );
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('does not make callers of other keys wait', async () => {
    const queue = new LocalKeyQueue();
    const held = await queue.enter(['one'], far());
    const other = await queue.enter(['two'], Date.now() + 50);
    expect(other).not.toBeNull();
    other?.();
    held?.();
  });

  it('answers null at the deadline, and those behind get in once the holder leaves', async () => {
    const queue = new LocalKeyQueue();
    const held = await queue.enter(['app'], far());
    const timedOut = queue.enter(['app'], Date.now() + 30);
    const behind = queue.enter(['app'], far());
    expect(await timedOut).toBeNull();
    held?.();
    const next = await behind;
    expect(next).not.toBeNull();
    next?.();
  });

  it('never deadlocks callers taking several keys in different orders', async () => {
    const queue = new LocalKeyQueue();
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const leave = await queue.enter(i % 2 ? ['x', 'y'] : ['y', 'x'], far());
        await new Promise((r) => setTimeout(r, 1));
        leave?.();
        return leave !== null;
      }),
    );
    expect(results.every(Boolean)).toBe(true);
  });
});
