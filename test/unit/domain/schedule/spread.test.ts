import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NEVER, planWindow } from '../../../../src/domain/plan/plan-window.js';
import { CronSyntaxError } from '../../../../src/domain/schedule/cron-schedule.js';
import {
  findHashedCronProblem,
  hashSeed,
  resolveHashedCron,
} from '../../../../src/domain/schedule/hashed-cron.js';
import { jitterOffset, MAX_JITTER_MS } from '../../../../src/domain/schedule/jitter.js';
import { type ScheduleFields, scheduleOf } from '../../../../src/domain/schedule/timer-schedule.js';

/** Spread: a stable H in cron fields and a stable jitter per run. */

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const T0 = Date.UTC(2030, 0, 1, 10, 0, 0);

const timer = (fields: Partial<ScheduleFields> = {}): ScheduleFields => ({
  id: 42,
  app: 'billing',
  name: 'nightly',
  cron: '0 * * * * *',
  at: null,
  timezone: 'UTC',
  startAt: null,
  endAt: null,
  ...fields,
});

/** The minute `H * * * *` gives a timer of this name. */
const minuteOf = (name: string) =>
  Number(resolveHashedCron('H * * * *', hashSeed({ app: 'app', name })).split(' ')[0]);

/** Kolmogorov–Smirnov distance between the values' distribution and the uniform one over [0, n). */
function ksDistance(values: number[], n: number): number {
  const counts = new Array<number>(n).fill(0);
  for (const v of values) counts[v]!++;
  let seen = 0;
  let worst = 0;
  for (let i = 0; i < n; i++) {
    seen += counts[i]!;
    worst = Math.max(worst, Math.abs(seen / values.length - (i + 1) / n));
  }
  return worst;
}

describe('H in a cron', () => {
  it('resolves the same way for the same app and name, and differently for others', () => {
    const seed = hashSeed({ app: 'billing', name: 'nightly' });
    const once = resolveHashedCron('H H * * *', seed);
    expect(resolveHashedCron('H H * * *', seed)).toBe(once);
    expect(once).toMatch(/^\d{1,2} \d{1,2} \* \* \*$/);
    const others = new Set(Array.from({ length: 50 }, (_, i) => minuteOf(`timer-${i}`)));
    expect(others.size).toBeGreaterThan(20);
  });

  it('keeps H(a-b) within its range, and H/n a step from a hashed start', () => {
    for (let i = 0; i < 500; i++) {
      const seed = hashSeed({ app: 'a', name: `n${i}` });
      const minute = Number(resolveHashedCron('H(0-29) * * * *', seed).split(' ')[0]);
      expect(minute).toBeGreaterThanOrEqual(0);
      expect(minute).toBeLessThanOrEqual(29);
      const [step] = resolveHashedCron('H/15 * * * *', seed).split(' ');
      expect(step).toMatch(/^([0-9]|1[0-4])-59\/15$/);
      const dom = Number(resolveHashedCron('0 0 H * *', seed).split(' ')[2]);
      expect(dom).toBeGreaterThanOrEqual(1);
      expect(dom).toBeLessThanOrEqual(28);
    }
  });

  it('leaves names holding the letter alone (THU) and expressions without H unchanged', () => {
    expect(resolveHashedCron('0 9 * * THU', 'x')).toBe('0 9 * * THU');
    expect(resolveHashedCron('H 9 * * THU', 'x')).toMatch(/^\d+ 9 \* \* THU$/);
  });

  it('names the field of an H it cannot resolve', () => {
    expect(() => resolveHashedCron('H(30-70) * * * *', 'x')).toThrow(CronSyntaxError);
    expect(findHashedCronProblem('H(30-70) * * * *')).toMatchObject({ field: 'minute' });
    expect(findHashedCronProblem('0 Hx * * *')).toMatchObject({ field: 'hour' });
    expect(findHashedCronProblem('H(0-29) * * * *')).toBeNull();
  });

  it('fires a timer at its resolved minute, every hour', () => {
    const s = scheduleOf(timer({ cron: 'H * * * *' }));
    const minute = Number(s.resolvedCron!.split(' ')[0]);
    expect(s.runsBetween(T0, T0 + 3 * H)).toEqual([0, 1, 2].map((h) => T0 + h * H + minute * MIN));
  });

  it('spreads 10,000 names uniformly over the hour, within 2%', () => {
    const minutes = Array.from({ length: 10_000 }, (_, i) => minuteOf(`timer-${i}`));
    expect(ksDistance(minutes, 60)).toBeLessThan(0.02);
  });

  it('is stable and uniform within 2% for any 10,000 names (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 10_000, maxLength: 10_000 }),
        (names) => {
          const minutes = names.map(minuteOf);
          expect(names.map(minuteOf)).toEqual(minutes);
          expect(ksDistance(minutes, 60)).toBeLessThan(0.02);
        },
      ),
      { seed: 21, numRuns: 5 },
    );
  });
});

describe('jitter', () => {
  it('is stable and falls in [0, jitterMs) (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 0, max: NEVER }),
        fc.integer({ min: 0, max: MAX_JITTER_MS }),
        (id, nominal, jitterMs) => {
          const offset = jitterOffset(id, nominal, jitterMs);
          expect(jitterOffset(id, nominal, jitterMs)).toBe(offset);
          expect(offset).toBeGreaterThanOrEqual(0);
          expect(offset).toBeLessThan(Math.max(1, jitterMs));
        },
      ),
      { seed: 21, numRuns: 2000 },
    );
  });

  it('shifts each run within [nominal, nominal + jitterMs), the same on every computation', () => {
    const fields = timer({ jitterMs: 59_000 });
    const runs = scheduleOf(fields).runsBetween(T0, T0 + 10 * MIN);
    expect(runs.length).toBeGreaterThanOrEqual(9);
    for (const r of runs) {
      const nominal = scheduleOf(fields).nominalOf(r);
      expect(nominal % MIN).toBe(0);
      expect(r - nominal).toBeGreaterThanOrEqual(0);
      expect(r - nominal).toBeLessThan(59_000);
    }
    // A fresh object (another node, a re-plan after Redis lost its data): the same instants.
    expect(scheduleOf({ ...fields }).runsBetween(T0, T0 + 10 * MIN)).toEqual(runs);
  });

  it('neither loses nor doubles a run across consecutive windows (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.array(fc.integer({ min: 1, max: 30 * MIN }), { minLength: 1, maxLength: 10 }),
        (id, jitterMs, cuts) => {
          const s = scheduleOf(timer({ id, jitterMs }));
          const whole = s.runsBetween(T0, T0 + 30 * MIN);
          const bounds = [T0, ...cuts.map((c) => T0 + c).sort((a, b) => a - b), T0 + 30 * MIN];
          const pieces = bounds.slice(1).flatMap((end, i) => s.runsBetween(bounds[i]!, end));
          expect(pieces).toEqual(whole);
          for (const r of whole) expect(s.firesAt(r)).toBe(true);
          // next() agrees with runsBetween().
          expect(s.next(T0 - 1, whole.length)).toEqual(whole);
        },
      ),
      { seed: 21, numRuns: 200 },
    );
  });

  it('applies to intervals too, and plans the last shifted run before endAt', () => {
    const fields = {
      ...timer({ cron: null, everyMs: MIN, offsetMs: 0, jitterMs: 50_000, endAt: T0 + 2 * MIN + 1 }),
      maxRuns: null,
      runsPlanned: 0,
      finalRunAt: null,
    };
    // The last nominal run (T0 + 2 min) may be shifted past the first plan's horizon.
    const plan = planWindow(fields, T0, T0 + 2 * MIN + 10 * S);
    expect(plan.plannedUntil).toBe(T0 + 2 * MIN + 10 * S);
    const rest = planWindow(fields, T0 + 2 * MIN + 10 * S, T0 + 4 * MIN);
    expect([...plan.runAts, ...rest.runAts].map((r) => scheduleOf(fields).nominalOf(r))).toEqual([
      T0,
      T0 + MIN,
      T0 + 2 * MIN,
    ]);
    expect(rest.plannedUntil).toBe(NEVER);
  });

  it('a one-shot is never shifted', () => {
    const s = scheduleOf(timer({ cron: null, at: T0 + 5, jitterMs: 1000 }));
    expect(s.runsBetween(T0, T0 + MIN)).toEqual([T0 + 5]);
  });
});
