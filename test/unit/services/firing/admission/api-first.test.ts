import { describe, expect, it, vi } from 'vitest';
import { API_FIRST_MAX_LOOKS, ApiFirst } from '../../../../../src/services/firing/admission/api-first.js';
import { Foreground } from '../../../../../src/services/firing/admission/foreground.js';

const MAX_LAG = 50;

describe('an executor yielding to the API of its process', () => {
  it('never yields while the loop keeps up, however busy the API', () => {
    const first = new ApiFirst(MAX_LAG);
    for (let i = 0; i < 20; i++) {
      first.look(MAX_LAG, true);
      expect(first.yielding).toBe(false);
    }
  });

  it('never yields to an idle API, however far behind the loop', () => {
    const first = new ApiFirst(MAX_LAG);
    first.look(900, false);
    expect(first.yielding).toBe(false);
  });

  it('yields once the loop is behind and a request waits, and goes on while requests keep coming', () => {
    const first = new ApiFirst(MAX_LAG);
    first.look(400, true);
    expect(first.yielding).toBe(true);
    // The loop keeps up now because the executor stopped: that alone does not end it.
    first.look(2, true);
    expect(first.yielding).toBe(true);
    first.look(2, false);
    expect(first.yielding).toBe(false);
  });

  it('fetches one look in API_FIRST_MAX_LOOKS + 1 under a client that never stops asking', () => {
    const first = new ApiFirst(MAX_LAG);
    const fetched: number[] = [];
    for (let i = 0; i < 3 * (API_FIRST_MAX_LOOKS + 1); i++) {
      first.look(400, true);
      if (!first.yielding) fetched.push(i);
    }
    expect(fetched).toEqual([API_FIRST_MAX_LOOKS, 2 * API_FIRST_MAX_LOOKS + 1, 3 * API_FIRST_MAX_LOOKS + 2]);
  });
});

describe('the foreground of a process', () => {
  it('is busy while a request is answered, and for the look after a short one', async () => {
    const foreground = new Foreground();
    expect(foreground.busySinceLastLook()).toBe(false);
    let answer!: () => void;
    const serving = foreground.serve(() => new Promise<void>((r) => (answer = r)));
    expect(foreground.busySinceLastLook()).toBe(true);
    expect(foreground.busySinceLastLook()).toBe(true);
    answer();
    await serving;
    expect(foreground.busySinceLastLook()).toBe(false);
    await foreground.serve(async () => undefined);
    expect(foreground.busySinceLastLook()).toBe(true);
    expect(foreground.busySinceLastLook()).toBe(false);
  });

  it('counts a request that fails as answered', async () => {
    const foreground = new Foreground();
    await expect(foreground.serve(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    foreground.busySinceLastLook();
    expect(foreground.busySinceLastLook()).toBe(false);
  });

  it("is seen by an executor in another thread, over the api's shared counts", async () => {
    const api = new Foreground();
    const executor = new Foreground({ shared: api.shared });
    let answer!: () => void;
    const serving = api.serve(() => new Promise<void>((r) => (answer = r)));
    expect(executor.busySinceLastLook()).toBe(true);
    answer();
    await serving;
    expect(executor.busySinceLastLook()).toBe(false);
  });

  it('with a thread of its own, counts only a request that has waited its patience', async () => {
    vi.useFakeTimers();
    try {
      const api = new Foreground({ patienceMs: 200 });
      const executor = new Foreground({ shared: api.shared });
      // Answered in time: the executor goes on.
      await api.serve(async () => {
        await vi.advanceTimersByTimeAsync(50);
      });
      expect(executor.busySinceLastLook()).toBe(false);
      // Still waiting past its patience: the executor yields, look after look.
      let answer!: () => void;
      const serving = api.serve(() => new Promise<void>((r) => (answer = r)));
      await vi.advanceTimersByTimeAsync(150);
      expect(executor.busySinceLastLook()).toBe(false);
      await vi.advanceTimersByTimeAsync(100);
      expect(executor.busySinceLastLook()).toBe(true);
      await vi.advanceTimersByTimeAsync(200);
      expect(executor.busySinceLastLook()).toBe(true);
      answer();
      await serving;
      // Answered late: counted once more, then no longer.
      expect(executor.busySinceLastLook()).toBe(true);
      expect(executor.busySinceLastLook()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
