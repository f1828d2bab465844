import { describe, expect, it } from 'vitest';
import { type Release, ReleaseGate } from '../../../../../src/services/firing/release/release-gate.js';

const releaseOf = (gate: ReleaseGate, dueMs: number) =>
  new Promise<Release>((resolve) => gate.hold(dueMs, resolve));

/** The gate against a clock that can be stepped, as a new offset from Redis steps it. */
describe('ReleaseGate', () => {
  it('lets a run go at its millisecond, by the clock it is given', async () => {
    const offset = 5_000;
    const now = () => Date.now() + offset;
    const gate = new ReleaseGate(now);
    const due = now() + 30;
    expect(await releaseOf(gate, due)).toBe('due');
    expect(now()).toBeGreaterThanOrEqual(due);
  });

  it('never lets a run go before its time when the clock steps back while it waits', async () => {
    const due = Date.now() + 20;
    let offset = 0;
    // Steps back 40 ms inside the last stretch of waiting, as a new offset from Redis would.
    const now = () => {
      const t = Date.now() + offset;
      if (offset === 0 && t >= due - 1) offset = -40;
      return Date.now() + offset;
    };
    const gate = new ReleaseGate(now);
    const { r, at } = await releaseOf(gate, due).then((r) => ({ r, at: now() }));
    expect(offset).toBe(-40);
    expect(r).toBe('due');
    expect(at).toBeGreaterThanOrEqual(due);
  });

  it('withdraws what waits at close', async () => {
    const gate = new ReleaseGate();
    const waiting = releaseOf(gate, Date.now() + 60_000);
    expect(gate.close()).toBe(1);
    expect(await waiting).toBe('withdrawn');
  });
});
