import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { type DutyTimers, RecurringDuties } from '../../../../src/services/planning/recurring-duties.js';

/**
 * The migrator's duties on a clock the test moves: when each pass comes, what is logged
 * of a failing duty, and that nothing runs after the stop.
 */
const T0 = Date.parse('2030-05-01T08:00:10Z');

function setUp() {
  let clock = T0;
  const pending: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  const timers: DutyTimers = {
    now: () => clock,
    schedule(fn, ms) {
      const entry = { at: clock + ms, fn, cancelled: false };
      pending.push(entry);
      return () => {
        entry.cancelled = true;
      };
    },
  };
  const logs: Array<{ level: string; msg: string; failures?: number }> = [];
  const logger = createLogger('info', {}, { write: (line: string) => logs.push(JSON.parse(line)) });
  const duties = new RecurringDuties(logger, timers);
  /** Lets pending passes settle, then moves the clock to `at`, running what falls due. */
  const advanceTo = async (at: number) => {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      pending.sort((a, b) => a.at - b.at);
      const next = pending[0];
      if (!next || next.at > at) break;
      pending.shift();
      clock = next.at;
      if (!next.cancelled) next.fn();
    }
    clock = at;
  };
  return { duties, logs, advanceTo, pending, now: () => clock };
}

describe('a recurring duty', () => {
  it('runs at once, then a period after each pass ends', async () => {
    const { duties, advanceTo, now } = setUp();
    const passes: number[] = [];
    duties.every('check', 5000, async () => {
      passes.push(now() - T0);
    });
    await advanceTo(T0 + 16_000);
    expect(passes).toEqual([0, 5000, 10_000, 15_000]);
  });

  it('aligned, runs a second after each boundary, or a period on when that is sooner', async () => {
    const { duties, advanceTo, now } = setUp();
    const passes: number[] = [];
    duties.every(
      'top-up',
      60_000,
      async () => {
        passes.push(now());
      },
      60_000,
    );
    await advanceTo(T0 + 130_000);
    // T0 is 10 s into its minute: the next passes come 1 s after each minute starts.
    expect(passes.map((t) => new Date(t).toISOString().slice(11, 19))).toEqual([
      '08:00:10',
      '08:01:01',
      '08:02:01',
    ]);
  });

  it('is logged when it first fails, every 30th failure after, and once when it works again', async () => {
    const { duties, advanceTo, logs } = setUp();
    let failing = 61;
    duties.every('plan repair', 1000, async () => {
      if (failing-- > 0) throw new Error('connect ECONNREFUSED');
    });
    await advanceTo(T0 + 70_000);
    expect(logs.map((l) => [l.level, l.msg, l.failures])).toEqual([
      ['warn', 'plan repair failed; will retry', 1],
      ['warn', 'plan repair failed; will retry', 31],
      ['warn', 'plan repair failed; will retry', 61],
      ['info', 'plan repair works again', 61],
    ]);
  });

  it('runs no more passes once stopped, and the stop waits for the pass under way', async () => {
    const { duties, advanceTo, pending } = setUp();
    let passes = 0;
    let finish = () => {};
    duties.every('migration', 1000, async () => {
      passes++;
      await new Promise<void>((r) => {
        finish = r;
      });
    });
    let stopped = false;
    const stopping = duties.stop().then(() => {
      stopped = true;
    });
    await advanceTo(T0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await advanceTo(T0 + 10_000);
    expect(passes).toBe(1);
    expect(pending.filter((p) => !p.cancelled)).toEqual([]);
  });
});
