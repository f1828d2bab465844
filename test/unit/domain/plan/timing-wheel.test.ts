import { describe, expect, it } from 'vitest';
import { TimingWheel } from '../../../../src/domain/plan/timing-wheel.js';

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

interface Item {
  id: number;
  dueMs: number;
}

/** What advance must return: by due time, ties in insertion (id) order. */
function expectedOrder(items: readonly Item[]): Item[] {
  return [...items].sort((a, b) => a.dueMs - b.dueMs || a.id - b.id);
}

/** Sleeps until nextExpiration like a driver would; records when each value comes out. */
function driveToEnd<T>(wheel: TimingWheel<T>): { releasedAt: Map<T, number>; wakeUps: number } {
  const releasedAt = new Map<T, number>();
  let wakeUps = 0;
  for (let next = wheel.nextExpiration(); next !== null; next = wheel.nextExpiration()) {
    wakeUps++;
    for (const value of wheel.advance(next)) releasedAt.set(value, next);
  }
  return { releasedAt, wakeUps };
}

describe('TimingWheel', () => {
  it('releases entries in due order, ties in insertion order', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    wheel.add(T0 + 30, 'c');
    wheel.add(T0 + 10, 'a1');
    wheel.add(T0 + 20, 'b');
    wheel.add(T0 + 10, 'a2');
    wheel.add(T0 + 10, 'a3');

    expect(wheel.advance(T0 + 100)).toEqual(['a1', 'a2', 'a3', 'b', 'c']);
    expect(wheel.size).toBe(0);
  });

  it('releases nothing before its due millisecond', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    wheel.add(T0 + 250, 'run');

    expect(wheel.advance(T0 + 249)).toEqual([]);
    expect(wheel.advance(T0 + 250)).toEqual(['run']);
    expect(wheel.advance(T0 + 251)).toEqual([]);
  });

  it('keeps insertion order for a millisecond whose entries arrived through different levels', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    const due = T0 + 10 * SECOND;
    wheel.add(due, 'first'); // far: goes to an overflow level
    wheel.advance(due - 100);
    wheel.add(due, 'second'); // near: goes straight to the finest level

    expect(wheel.advance(due)).toEqual(['first', 'second']);
  });

  it('returns null from add for an entry already due', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });

    expect(wheel.add(T0, 'now')).toBeNull();
    expect(wheel.add(T0 - 5 * SECOND, 'late')).toBeNull();
    expect(wheel.add(T0 + 1, 'next ms')).not.toBeNull();
    expect(wheel.size).toBe(1);
    wheel.advance(T0 + 50);
    expect(wheel.add(T0 + 50, 'now again')).toBeNull();
    expect(wheel.add(T0 + 49, 'just passed')).toBeNull();
  });

  it('never moves its time backwards', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    wheel.add(T0 + 100, 'run');
    wheel.advance(T0 + 50);

    expect(wheel.advance(T0 + 10)).toEqual([]);
    expect(wheel.timeMs).toBe(T0 + 50);
    expect(wheel.add(T0 + 40, 'behind')).toBeNull();
    expect(wheel.advance(T0 + 100)).toEqual(['run']);
  });

  it('hands back a handle carrying the due time and value', () => {
    const wheel = new TimingWheel<{ taskKey: string }>({ startMs: T0 });
    const value = { taskKey: '7_1741947424821' };
    const entry = wheel.add(T0 + 500, value);

    expect(entry?.dueMs).toBe(T0 + 500);
    expect(entry?.value).toBe(value);
  });

  it('cascades entries minutes, hours and days ahead down through overflow levels to their exact ms', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    const dues = {
      soon: T0 + 300,
      minutes: T0 + 7 * MINUTE + 13,
      hour: T0 + HOUR + 1,
      hours: T0 + 5 * HOUR + 42 * MINUTE + 7,
      days: T0 + 3 * 24 * HOUR + 999,
    };
    for (const [name, due] of Object.entries(dues)) wheel.add(due, name);

    const { releasedAt, wakeUps } = driveToEnd(wheel);

    for (const [name, due] of Object.entries(dues)) expect(releasedAt.get(name)).toBe(due);
    // A few wake-ups per level crossed, never one per elapsed tick.
    expect(wakeUps).toBeLessThan(25);
  });

  it('releases a far entry at its exact ms when advanced directly around it', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    const due = T0 + 2 * HOUR + 17;
    wheel.add(due, 'run');

    expect(wheel.advance(due - 1)).toEqual([]);
    expect(wheel.nextExpiration()).toBe(due);
    expect(wheel.advance(due)).toEqual(['run']);
  });

  it('releases each of many random entries at its exact ms when driven by nextExpiration', () => {
    const next = random(7);
    const wheel = new TimingWheel<number>({ startMs: T0 });
    const dues: number[] = [];
    for (let id = 0; id < 500; id++) {
      const due = T0 + 1 + Math.floor(next() * 10 * HOUR);
      dues.push(due);
      wheel.add(due, id);
    }

    const { releasedAt } = driveToEnd(wheel);

    expect(releasedAt.size).toBe(500);
    for (const [id, at] of releasedAt) expect(at).toBe(dues[id]);
  });

  it('never releases a cancelled entry', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    wheel.add(T0 + 10, 'kept');
    const cancelled = wheel.add(T0 + 10, 'cancelled');
    const far = wheel.add(T0 + HOUR, 'far cancelled');

    expect(cancelled?.cancel()).toBe(true);
    expect(far?.cancel()).toBe(true);
    expect(wheel.advance(T0 + 2 * HOUR)).toEqual(['kept']);
  });

  it('returns false when an entry is cancelled a second time or after its release', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    const a = wheel.add(T0 + 10, 'a');
    const b = wheel.add(T0 + 20, 'b');

    expect(a?.cancel()).toBe(true);
    expect(a?.cancel()).toBe(false);
    wheel.advance(T0 + 20);
    expect(b?.cancel()).toBe(false);
  });

  it('counts only pending, non-cancelled entries in size', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    const entries = [10, 20, 30, 40].map((offset) => wheel.add(T0 + offset, `run ${offset}`));
    expect(wheel.size).toBe(4);

    entries[1]?.cancel();
    entries[1]?.cancel();
    expect(wheel.size).toBe(3);

    wheel.advance(T0 + 30);
    expect(wheel.size).toBe(1);
  });

  it('skips buckets emptied by cancellation in nextExpiration', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    expect(wheel.nextExpiration()).toBeNull();

    const early = wheel.add(T0 + 10, 'early');
    wheel.add(T0 + 90, 'late');
    expect(wheel.nextExpiration()).toBe(T0 + 10);

    early?.cancel();
    expect(wheel.nextExpiration()).toBe(T0 + 90);
    wheel.advance(T0 + 90);
    expect(wheel.nextExpiration()).toBeNull();
  });

  it('re-adds an entry to a bucket it emptied by cancellation', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    wheel.add(T0 + 10, 'a')?.cancel();
    expect(wheel.nextExpiration()).toBeNull();

    wheel.add(T0 + 10, 'b');
    expect(wheel.nextExpiration()).toBe(T0 + 10);
    expect(wheel.advance(T0 + 10)).toEqual(['b']);
  });

  it('returns everything due across an hour-long jump, in order', () => {
    const next = random(42);
    const wheel = new TimingWheel<Item>({ startMs: T0 });
    const items: Item[] = [];
    for (let id = 0; id < 5000; id++) {
      // Whole seconds, as cron runs land, so many share a millisecond.
      const item = { id, dueMs: T0 + 1 + Math.floor(next() * 3600) * SECOND };
      items.push(item);
      wheel.add(item.dueMs, item);
    }

    const released = wheel.advance(T0 + HOUR + SECOND);

    expect(released).toEqual(expectedOrder(items));
    expect(wheel.size).toBe(0);
    expect(wheel.nextExpiration()).toBeNull();
  });

  it('handles 100,000 entries spread over 10 minutes, some cancelled, released in two big steps', () => {
    const next = random(2024);
    const wheel = new TimingWheel<Item>({ startMs: T0 });
    const items: Item[] = [];
    const cancelled = new Set<number>();
    for (let id = 0; id < 100_000; id++) {
      const item = { id, dueMs: T0 + 1 + Math.floor(next() * 10 * MINUTE) };
      items.push(item);
      const entry = wheel.add(item.dueMs, item);
      if (id % 10 === 0 && entry?.cancel()) cancelled.add(id);
    }
    expect(wheel.size).toBe(90_000);

    const firstHalf = wheel.advance(T0 + 5 * MINUTE);
    const rest = wheel.advance(T0 + 10 * MINUTE + 1);

    const expected = expectedOrder(items).filter((item) => !cancelled.has(item.id));
    expect(firstHalf).toEqual(expected.filter((item) => item.dueMs <= T0 + 5 * MINUTE));
    expect([...firstHalf, ...rest]).toEqual(expected);
    expect(wheel.size).toBe(0);
  });

  it('releases at the exact ms with a tick coarser than a millisecond', () => {
    const wheel = new TimingWheel<string>({ startMs: T0, tickMs: 10, wheelSize: 8 });
    const due = T0 + 1234;
    wheel.add(due, 'run');
    wheel.add(due + 3, 'later in the same tick');

    const expiration = wheel.nextExpiration();
    expect(expiration).not.toBeNull();
    expect(expiration!).toBeLessThanOrEqual(due);
    expect(wheel.advance(due - 1)).toEqual([]);
    expect(wheel.nextExpiration()).toBe(due);
    expect(wheel.advance(due)).toEqual(['run']);
    expect(wheel.nextExpiration()).toBe(due + 3);
    expect(wheel.advance(due + 3)).toEqual(['later in the same tick']);
  });

  it('drains every pending value in due order', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });
    wheel.add(T0 + HOUR, 'c');
    wheel.add(T0 + 5, 'a');
    wheel.add(T0 + MINUTE, 'b');
    wheel.add(T0 + 7, 'cancelled')?.cancel();

    expect(wheel.drain()).toEqual(['a', 'b', 'c']);
    expect(wheel.size).toBe(0);
    expect(wheel.nextExpiration()).toBeNull();
    expect(wheel.advance(T0 + 2 * HOUR)).toEqual([]);
  });

  it('rejects a non-finite due time', () => {
    const wheel = new TimingWheel<string>({ startMs: T0 });

    expect(() => wheel.add(Number.POSITIVE_INFINITY, 'never')).toThrow(RangeError);
    expect(() => wheel.add(Number.NaN, 'never')).toThrow(RangeError);
    expect(() => wheel.advance(Number.NaN)).toThrow(RangeError);
  });
});
