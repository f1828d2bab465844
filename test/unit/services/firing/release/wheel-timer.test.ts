import { afterEach, describe, expect, it, vi } from 'vitest';
import { WheelTimer } from '../../../../../src/services/firing/release/wheel-timer.js';

const T0 = Date.UTC(2025, 2, 14, 10, 17, 4, 321);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Deterministic pseudo-random numbers (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('WheelTimer with a fake clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function fakeTimer<T>() {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    const deliveries: { at: number; values: T[] }[] = [];
    const timer = new WheelTimer<T>({
      now: () => Date.now(),
      onDue: (values) => deliveries.push({ at: Date.now(), values }),
    });
    return { timer, deliveries };
  }

  it('fires at the exact due millisecond', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 + 250, 'run');

    vi.advanceTimersByTime(249);
    expect(deliveries).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(deliveries).toEqual([{ at: T0 + 250, values: ['run'] }]);
    expect(timer.size).toBe(0);
  });

  it('fires an entry hours ahead at its exact millisecond', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 + 3 * HOUR + 17, 'run');

    vi.advanceTimersByTime(3 * HOUR + 16);
    expect(deliveries).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(deliveries).toEqual([{ at: T0 + 3 * HOUR + 17, values: ['run'] }]);
  });

  it('delivers many entries due at the same millisecond in one onDue call', () => {
    const { timer, deliveries } = fakeTimer<number>();
    const due = T0 + 2 * SECOND;
    const ids = Array.from({ length: 5000 }, (_, i) => i);
    for (const id of ids) timer.schedule(due, id);

    vi.advanceTimersByTime(2 * SECOND);

    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toEqual({ at: due, values: ids });
  });

  it('delivers overdue entries promptly, in one batch', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 - 5 * SECOND, 'takeover');
    timer.schedule(T0 - 1, 'late start');
    timer.schedule(T0, 'due now');
    expect(deliveries).toEqual([]); // not synchronously: the caller may still be scheduling
    expect(timer.size).toBe(3);

    vi.advanceTimersByTime(0);

    expect(deliveries).toEqual([{ at: T0, values: ['takeover', 'late start', 'due now'] }]);
    expect(timer.size).toBe(0);
  });

  it('does not deliver an overdue entry cancelled before the batch goes out', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 - 10, 'kept');
    const handle = timer.schedule(T0 - 10, 'disabled');

    expect(handle.cancel()).toBe(true);
    expect(handle.cancel()).toBe(false);
    vi.advanceTimersByTime(0);

    expect(deliveries).toEqual([{ at: T0, values: ['kept'] }]);
  });

  it('re-arms when an earlier entry is scheduled after a later one', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 + 800, 'later');
    timer.schedule(T0 + 100, 'earlier');

    vi.advanceTimersByTime(100);
    expect(deliveries).toEqual([{ at: T0 + 100, values: ['earlier'] }]);
    vi.advanceTimersByTime(700);
    expect(deliveries).toEqual([
      { at: T0 + 100, values: ['earlier'] },
      { at: T0 + 800, values: ['later'] },
    ]);
  });

  it('keeps exactly one Node timer armed however many entries are pending', () => {
    const { timer } = fakeTimer<number>();
    for (let i = 0; i < 1000; i++) timer.schedule(T0 + 10 + (i % 300) * 7, i);

    expect(vi.getTimerCount()).toBe(1);
  });

  it('never fires a cancelled entry', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 + 100, 'kept');
    const handle = timer.schedule(T0 + 100, 'disabled');

    expect(handle.cancel()).toBe(true);
    expect(handle.cancel()).toBe(false);
    expect(timer.size).toBe(1);
    vi.advanceTimersByTime(100);

    expect(deliveries).toEqual([{ at: T0 + 100, values: ['kept'] }]);
  });

  it('clears its Node timer once every pending entry is cancelled', () => {
    const { timer } = fakeTimer<string>();
    const handle = timer.schedule(T0 + MINUTE, 'run');
    expect(vi.getTimerCount()).toBe(1);

    handle.cancel();

    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-arms instead of delivering when its Node timer wakes before the due ms', () => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    let skewMs = 0;
    const deliveries: { at: number; values: string[] }[] = [];
    // now() lagging the timer clock: the Node timer fires while now() says it is early.
    const timer = new WheelTimer<string>({
      now: () => Date.now() - skewMs,
      onDue: (values) => deliveries.push({ at: Date.now() - skewMs, values }),
    });
    timer.schedule(T0 + 100, 'run');
    skewMs = 5;

    vi.advanceTimersByTime(100);
    expect(deliveries).toEqual([]);
    vi.advanceTimersByTime(5);
    expect(deliveries).toEqual([{ at: T0 + 100, values: ['run'] }]);
  });

  it('returns the pending values from stop() and fires nothing afterwards', () => {
    const { timer, deliveries } = fakeTimer<string>();
    timer.schedule(T0 + 2 * HOUR, 'hours away');
    timer.schedule(T0 + 50, 'soon');
    timer.schedule(T0 - 1, 'overdue');

    expect(timer.stop()).toEqual(['overdue', 'soon', 'hours away']);
    expect(timer.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(3 * HOUR);
    expect(deliveries).toEqual([]);
    expect(() => timer.schedule(T0 + 4 * HOUR, 'after stop')).toThrow(/stopped/);
  });

  it('keeps the process alive while entries are pending unless told to unref', () => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    const unref = vi.spyOn(globalThis, 'setTimeout');
    const kept = new WheelTimer<string>({ onDue: () => {} });
    kept.schedule(T0 + 100, 'run');
    const unrefed = new WheelTimer<string>({ onDue: () => {}, unref: true });
    unrefed.schedule(T0 + 100, 'run');

    const [keptHandle, unrefedHandle] = unref.mock.results.map((result) => result.value as NodeJS.Timeout);
    expect(keptHandle?.hasRef()).toBe(true);
    expect(unrefedHandle?.hasRef()).toBe(false);
    kept.stop();
    unrefed.stop();
  });
});

describe('WheelTimer in real time', () => {
  it('delivers no entry before its due millisecond', async () => {
    const start = Date.now();
    const dues = new Map<number, number>();
    const deliveredAt = new Map<number, number>();
    const next = random(99);
    const all = new Promise<void>((resolve) => {
      const timer = new WheelTimer<number>({
        onDue: (values) => {
          const at = Date.now();
          for (const value of values) deliveredAt.set(value, at);
          if (deliveredAt.size === dues.size) resolve();
        },
      });
      for (let id = 0; id < 50; id++) {
        const due = start + 20 + Math.floor(next() * 40);
        dues.set(id, due);
        timer.schedule(due, id);
      }
    });

    await all;

    for (const [id, due] of dues) expect(deliveredAt.get(id)!).toBeGreaterThanOrEqual(due);
  });
});
