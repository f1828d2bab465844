import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FiringLulls, MAX_WAIT_MS } from '../../../../../src/services/firing/release/firing-lulls.js';
import { ReleaseGate } from '../../../../../src/services/firing/release/release-gate.js';

/** Lulls whose clocks are both the fake one. */
const lullsOnFakeClock = () => new FiringLulls(Date.now, Date.now);

/** How long `wait(needMs)` took on the fake clock. */
async function waited(lulls: FiringLulls, needMs: number): Promise<number> {
  const from = Date.now();
  let done = false;
  const wait = lulls.wait(needMs).then(() => {
    done = true;
  });
  for (;;) {
    await vi.advanceTimersByTimeAsync(0);
    if (done) break;
    await vi.advanceTimersByTimeAsync(1);
  }
  await wait;
  return Date.now() - from;
}

describe('FiringLulls', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T10:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('has no wait where no executor fires', async () => {
    expect(await waited(lullsOnFakeClock(), 100)).toBe(0);
  });

  it('waits for an instant’s burst to settle, longer the more runs it let go', async () => {
    const lulls = lullsOnFakeClock();
    lulls.released(1000);
    expect(await waited(lulls, 100)).toBe(200);
    lulls.released(100);
    expect(await waited(lulls, 100)).toBe(20);
  });

  it('keeps clear of the next burst when the runs come in bursts', async () => {
    const lulls = lullsOnFakeClock();
    lulls.released(1000);
    await vi.advanceTimersByTimeAsync(900);
    // The next instant is 50 ms away: a batch needing 100 ms waits until it has gone and settled.
    const nextAt = Date.now() + 50;
    lulls.watch(() => (Date.now() <= nextAt ? nextAt : nextAt + 1000));
    setTimeout(() => lulls.released(1000), 50);
    expect(await waited(lulls, 100)).toBe(250);
    // With the next one far enough ahead, it goes at once.
    expect(await waited(lulls, 100)).toBe(0);
  });

  it('waits only for the settle when the bursts leave too little room between them for the batch', async () => {
    const lulls = lullsOnFakeClock();
    lulls.watch(() => Date.now() + 50);
    // Bursts 300 ms apart, 200 ms settling each: 100 ms between them.
    lulls.released(1000);
    await vi.advanceTimersByTimeAsync(300);
    lulls.released(1000);
    expect(await waited(lulls, 150)).toBe(200);
    // A second apart, 800 ms between them: the same batch keeps clear of the next one.
    const spaced = lullsOnFakeClock();
    spaced.watch(() => Date.now() + 50);
    spaced.released(1000);
    await vi.advanceTimersByTimeAsync(1000);
    spaced.released(1000);
    await vi.advanceTimersByTimeAsync(200);
    setTimeout(() => spaced.released(5), 50);
    expect(await waited(spaced, 150)).toBe(51);
  });

  it('does not wait for the next release when runs come a few at a time', async () => {
    const lulls = lullsOnFakeClock();
    lulls.watch(() => Date.now() + 1);
    lulls.released(5);
    expect(await waited(lulls, 100)).toBe(1);
  });

  it('gives up after a second when the bursts leave no room', async () => {
    const lulls = lullsOnFakeClock();
    lulls.watch(() => Date.now() + 10);
    lulls.released(1000);
    expect(await waited(lulls, 100)).toBe(MAX_WAIT_MS);
  });
});

describe('ReleaseGate with FiringLulls', () => {
  it('reports each instant’s release and when the next is due', async () => {
    const lulls = lullsOnFakeClock();
    const gate = new ReleaseGate(Date.now, lulls);
    const events: string[] = [];
    const due = Date.now() + 30;
    const burst = Promise.all(
      Array.from({ length: 100 }, () => new Promise<void>((resolve) => gate.hold(due, () => resolve()))),
    );
    gate.hold(due + 500, () => events.push('next instant released'));
    await burst;
    // The burst settles within 20 ms; the next instant is further off than a short batch
    // needs, not than a long one does.
    await lulls.wait(100);
    events.push('short batch');
    await lulls.wait(700);
    events.push('long batch');
    expect(events).toEqual(['short batch', 'next instant released', 'long batch']);
    gate.close();
  });
});
