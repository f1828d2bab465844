import fc from 'fast-check';
import { expect, it } from 'vitest';
import { replanFrom } from '../../../../src/domain/plan/replan-from.js';
import { type ScheduleFields, scheduleOf } from '../../../../src/domain/schedule/timer-schedule.js';

/** Where a re-plan begins: by occurrence when only the jitter changes. */

const T0 = Date.UTC(2030, 0, 1, 10, 0, 0);
const END = T0 + 10 * 60_000;

const timer = (fields: Partial<ScheduleFields> & { jitterMs: number }) => ({
  id: 42,
  app: 'billing',
  name: 'sync',
  cron: null,
  at: null,
  timezone: 'UTC',
  startAt: null,
  endAt: null,
  everyMs: 10_000,
  offsetMs: 0,
  skipDates: {},
  ...fields,
});

it('a change of jitter alone calls each occurrence once: its old run if that has come, else its new one', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 60_000, max: 300_000 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      (oldJitter, newJitter, at, id) => {
        const before = timer({ id, jitterMs: oldJitter });
        const after = timer({ id, jitterMs: newJitter });
        const now = T0 + at;
        const old = scheduleOf(before);
        const renewed = scheduleOf(after);
        const come = old.runsBetween(T0, now).map((r) => old.nominalOf(r));
        const planned = renewed
          .runsBetween(replanFrom(before, after, now), END)
          .map((r) => renewed.nominalOf(r));
        const served = [...come, ...planned].filter((n) => n < END - 10_000);
        const nominal = scheduleOf(timer({ jitterMs: 0 }))
          .runsBetween(T0, END - 10_000)
          .filter((n) => n >= old.nominalOf(old.runsBetween(T0, END)[0]!));
        expect(served).toEqual(nominal);
      },
    ),
  );
});

it('plans from now when the instants themselves change, or the jitter does not', () => {
  const now = T0 + 65_432;
  const before = timer({ jitterMs: 9000 });
  expect(replanFrom(before, timer({ jitterMs: 9000, endAt: END }), now)).toBe(now);
  expect(replanFrom(before, timer({ jitterMs: 5000, everyMs: 20_000 }), now)).toBe(now);
  // The window or the dates changed too: runs before the old schedule's next one may be new.
  const later = timer({ jitterMs: 9000, startAt: T0 + 3_600_000 });
  expect(replanFrom(later, timer({ jitterMs: 5000 }), now)).toBe(now);
  expect(replanFrom(before, timer({ jitterMs: 5000, skipDates: { '2030-01-01': ['c'] } }), now)).toBe(now);
  const cron = timer({ everyMs: null, cron: '*/10 * * * * *', jitterMs: 9000 });
  expect(replanFrom(cron, { ...cron, cron: '*/20 * * * * *', jitterMs: 5000 }, now)).toBe(now);
  expect(replanFrom(cron, { ...cron, jitterMs: 5000 }, now) % 10_000).toBe(0);
});
