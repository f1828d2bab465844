import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import {
  AFTER_BOUNDARY_MS,
  type DutyTimers,
  nextRunDelayMs,
  PeriodicDuties,
} from '../../src/services/periodic-duties.js';

/** Timers a test fires by hand: what is armed, and for how long. */
function manualTimers() {
  let next = 0;
  const armed = new Map<number, { fn: () => void; ms: number }>();
  const timers: DutyTimers = {
    set: (fn, ms) => {
      armed.set(++next, { fn, ms });
      return next;
    },
    clear: (handle) => armed.delete(handle as number),
  };
  /** Fires every armed timer once (each re-arms after its run ends). */
  const fireAll = () => {
    const due = [...armed.entries()];
    armed.clear();
    for (const [, t] of due) t.fn();
  };
  return { timers, armed, fireAll };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

describe('when a duty runs next', () => {
  it('waits its period when it is not aligned', () => {
    expect(nextRunDelayMs({ periodMs: 5000 }, 1_234_567)).toBe(5000);
  });

  it('runs just after the next boundary when that comes before its period', () => {
    const minute = 60_000;
    // 10 s before a minute boundary: due 10 s + AFTER_BOUNDARY_MS later.
    expect(nextRunDelayMs({ periodMs: minute, alignToMs: minute }, 50 * minute - 10_000)).toBe(
      10_000 + AFTER_BOUNDARY_MS,
    );
  });

  it('never waits longer than its period, however far the boundary', () => {
    const hour = 3_600_000;
    expect(nextRunDelayMs({ periodMs: 60_000, alignToMs: hour }, 5 * hour + 1000)).toBe(60_000);
  });

  it('takes the wait a custom schedule gives from the time the run ended', () => {
    expect(nextRunDelayMs({ periodMs: 1000, nextDelayMs: (now) => 2000 - (now % 1000) }, 10_300)).toBe(1700);
  });
});

describe('PeriodicDuties', () => {
  it('runs a duty at once, then again each time its wait has passed', async () => {
    const { timers, armed, fireAll } = manualTimers();
    const duties = new PeriodicDuties({ logger: createLogger('silent'), now: () => 0, timers });
    let runs = 0;
    duties.every('count', { periodMs: 5000 }, async () => {
      runs++;
    });
    expect(runs).toBe(1);
    await settle();
    expect([...armed.values()].map((t) => t.ms)).toEqual([5000]);
    fireAll();
    await settle();
    expect(runs).toBe(2);
    await duties.stop();
  });

  it('does not start a run before the previous one has ended', async () => {
    const { timers, armed } = manualTimers();
    const duties = new PeriodicDuties({ logger: createLogger('silent'), now: () => 0, timers });
    let finish: () => void = () => undefined;
    duties.every(
      'slow',
      { periodMs: 10 },
      () =>
        new Promise<void>((r) => {
          finish = r;
        }),
    );
    await settle();
    expect(armed.size).toBe(0);
    finish();
    await settle();
    expect(armed.size).toBe(1);
    await duties.stop();
  });

  it('keeps its schedule after a failure', async () => {
    const { timers, armed, fireAll } = manualTimers();
    const duties = new PeriodicDuties({ logger: createLogger('silent'), now: () => 0, timers });
    let runs = 0;
    duties.every('flaky', { periodMs: 1000 }, async () => {
      runs++;
      throw new Error('redis is down');
    });
    await settle();
    fireAll();
    await settle();
    expect(runs).toBe(2);
    expect(armed.size).toBe(1);
    await duties.stop();
  });

  it('on stop, cancels what is armed and waits for the run under way', async () => {
    const { timers, armed } = manualTimers();
    const duties = new PeriodicDuties({ logger: createLogger('silent'), now: () => 0, timers });
    duties.every('quick', { periodMs: 1000 }, async () => undefined);
    let finish: () => void = () => undefined;
    let finished = false;
    duties.every('slow', { periodMs: 1000 }, () =>
      new Promise<void>((r) => {
        finish = r;
      }).then(() => {
        finished = true;
      }),
    );
    await settle();
    expect(armed.size).toBe(1);
    const stopping = duties.stop();
    expect(armed.size).toBe(0);
    finish();
    await stopping;
    expect(finished).toBe(true);
    expect(armed.size).toBe(0);
  });
});
