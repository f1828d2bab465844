import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { windowAt } from '../../../../src/domain/plan/migration-window.js';
import {
  expandRuns,
  findCronProblem,
  nextRuns,
  parseCron,
} from '../../../../src/domain/schedule/cron-schedule.js';
import { nativeFromCronexpr } from '../../../../src/domain/schedule/cronexpr-dialect.js';
import { formatInZone } from '../../../../src/domain/schedule/time-zone.js';
import { scheduleOf } from '../../../../src/domain/schedule/timer-schedule.js';
import {
  offsetChangesOf,
  referenceRuns,
  scanWallClock,
  type WallClockScan,
  wallClockAt,
} from '../../../helpers/wall-clock-reference.js';

/**
 * The DST rule holds wherever a fire time is computed, proven against
 * a brute-force reading of the wall clock (test/helpers/wall-clock-reference.ts) over
 * every transition of the zones below.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (iso: string) => Date.parse(iso);
const iso = (runs: number[]) => runs.map((t) => new Date(t).toISOString());

/** Eight zones: half-hour DST, a 45-minute offset, changes at midnight, the south, a suspension. */
const EIGHT_ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/Santiago',
  'America/Havana',
  'Australia/Sydney',
  'Africa/Casablanca',
];
/** And more for the property test: a half-hour zone, a two-hour DST step, irregular dates, a negative DST. */
const MORE_ZONES = [
  'America/St_Johns',
  'Antarctica/Troll',
  'Asia/Gaza',
  'Europe/Dublin',
  'Pacific/Easter',
  'US/Eastern',
];

/** The scan of each transition: a day and a half either side, read once. */
const scans = new Map<string, WallClockScan>();
function scanAround(zone: string, change: number): WallClockScan {
  const key = `${zone} ${change}`;
  let scan = scans.get(key);
  if (!scan) {
    scan = scanWallClock(zone, change - 36 * HOUR, change + 36 * HOUR);
    scans.set(key, scan);
  }
  return scan;
}

const changesIn = (zone: string, fromYear: number, toYear: number) =>
  offsetChangesOf(zone, Date.UTC(fromYear, 0, 1), Date.UTC(toYear + 1, 0, 1));

describe('the New York examples of docs/schedules.md', () => {
  const zone = 'America/New_York';
  const local = (runs: number[]) =>
    runs.map((t) => `${new Date(t).toISOString().slice(11, 16)}Z ${formatInZone(t, zone).slice(11, 16)}`);

  it('daily 02:30 fires at 03:30 EDT on the spring day and once, at 02:30 EST, on the fall day', () => {
    const daily = parseCron('30 2 * * *');
    expect(local(expandRuns(daily, zone, at('2027-03-14T00:00:00Z'), at('2027-03-15T00:00:00Z')))).toEqual([
      '07:30Z 03:30',
    ]);
    expect(local(expandRuns(daily, zone, at('2027-11-07T00:00:00Z'), at('2027-11-08T00:00:00Z')))).toEqual([
      '07:30Z 02:30',
    ]);
  });

  it('daily 01:30 fires once on the fall day, at its first occurrence (EDT)', () => {
    const runs = expandRuns(
      parseCron('30 1 * * *'),
      zone,
      at('2027-11-07T00:00:00Z'),
      at('2027-11-08T00:00:00Z'),
    );
    expect(local(runs)).toEqual(['05:30Z 01:30']);
  });

  it('every 15 minutes skips the missing hour on the spring day and fires the repeated hour twice on the fall day, always 15 minutes apart', () => {
    const every15 = parseCron('*/15 * * * *');
    const spring = expandRuns(every15, zone, at('2027-03-14T06:30:00Z'), at('2027-03-14T07:31:00Z'));
    expect(local(spring)).toEqual([
      '06:30Z 01:30',
      '06:45Z 01:45',
      '07:00Z 03:00',
      '07:15Z 03:15',
      '07:30Z 03:30',
    ]);
    const fall = expandRuns(every15, zone, at('2027-11-07T05:30:00Z'), at('2027-11-07T07:01:00Z'));
    expect(local(fall)).toEqual([
      '05:30Z 01:30',
      '05:45Z 01:45',
      '06:00Z 01:00',
      '06:15Z 01:15',
      '06:30Z 01:30',
      '06:45Z 01:45',
      '07:00Z 02:00',
    ]);
  });
});

/** Ten crons: fixed times, frequent ones, restricted hours, seconds, midnight. */
const TEN_CRONS = [
  '30 2 * * *',
  '30 1 * * *',
  '0 0 * * *',
  '45 23 * * *',
  '15,45 0-3 * * *',
  '*/15 * * * *',
  '0 * * * *',
  '*/15 1-3 * * *',
  '*/20 */2 * * *',
  '*/10 */7 * * * *',
];

describe('every 2027 transition of the eight zones, ten crons each, agrees with the wall clock', () => {
  const cases = EIGHT_ZONES.flatMap((zone) =>
    changesIn(zone, 2027, 2027).map((change) => ({ zone, change })),
  );

  it('finds two in each zone (Casablanca: out of and back into its Ramadan suspension)', () => {
    for (const zone of EIGHT_ZONES)
      expect(
        cases.filter((c) => c.zone === zone),
        zone,
      ).toHaveLength(2);
  });

  it.each(cases.map((c) => [c.zone, new Date(c.change).toISOString(), c.change] as const))(
    '%s at %s',
    (zone, _, change) => {
      const scan = scanAround(zone, change);
      const [from, to] = [change - 12 * HOUR, change + 12 * HOUR];
      for (const cron of TEN_CRONS) {
        expect({ cron, runs: iso(expandRuns(parseCron(cron), zone, from, to)) }).toEqual({
          cron,
          runs: iso(referenceRuns(cron, scan, from, to)),
        });
      }
    },
  );
});

describe('every zone Node’s tz database knows', () => {
  it('agrees with the wall clock across each 2027 transition, for a frequent and a fixed-time cron', () => {
    // Zones changing at the same instant between the same offsets show the same wall clock: one stands for all.
    const distinct = new Map<string, { zone: string; change: number }>();
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      for (const change of changesIn(zone, 2027, 2027)) {
        const offsets = [change - MINUTE, change].map((t) => wallClockAt(zone, t) - t);
        distinct.set(`${change} ${offsets}`, { zone, change });
      }
    }
    for (const { zone, change } of distinct.values()) {
      const scan = scanWallClock(zone, change - 26 * HOUR, change + 26 * HOUR);
      const [from, to] = [change - 2 * HOUR, change + 2 * HOUR];
      for (const cron of ['*/15 * * * *', '30 0-3,23 * * *']) {
        expect({ zone, cron, runs: iso(expandRuns(parseCron(cron), zone, from, to)) }).toEqual({
          zone,
          cron,
          runs: iso(referenceRuns(cron, scan, from, to)),
        });
      }
    }
    expect(distinct.size).toBeGreaterThan(30);
  }, 60_000);
});

describe('the xTimer-compatible 7-field cron follows the same rule', () => {
  it.each(['0 */15 * * * * 2027', '0 30 2 * * * 2027', '0 0,30 1 * * ? *', '*/30 */20 * * * * 2026-2028'])(
    '%s',
    (cronexpr) => {
      for (const zone of ['America/New_York', 'Australia/Lord_Howe']) {
        for (const change of changesIn(zone, 2027, 2027)) {
          const [from, to] = [change - 6 * HOUR, change + 6 * HOUR];
          const native = parseCron(nativeFromCronexpr(cronexpr), { allowYear: true });
          expect(iso(expandRuns(native, zone, from, to))).toEqual(
            iso(referenceRuns(cronexpr, scanAround(zone, change), from, to)),
          );
        }
      }
    },
  );
});

describe('migration windows, computed in UTC, across a gap or an overlap', () => {
  it.each([1, 15, 60])('%s-minute windows lose no run and double none', (stepMinutes) => {
    for (const zone of EIGHT_ZONES) {
      for (const change of changesIn(zone, 2027, 2027)) {
        const scan = scanAround(zone, change);
        const [from, to] = [
          windowAt(change - 4 * HOUR, stepMinutes).start,
          windowAt(change + 4 * HOUR, stepMinutes).start,
        ];
        for (const cron of ['*/15 * * * *', '30 2 * * *', '*/10 */7 * * * *', '15,45 0-3 * * *']) {
          const timer = { cron, at: null, timezone: zone, startAt: null, endAt: null };
          const planned: number[] = [];
          for (let w = from; w < to; w += stepMinutes * MINUTE) {
            planned.push(...scheduleOf(timer).runsBetween(w, windowAt(w, stepMinutes).end));
          }
          expect({ zone, cron, planned: iso(planned) }).toEqual({
            zone,
            cron,
            planned: iso(referenceRuns(cron, scan, from, to)),
          });
        }
      }
    }
  });
});

/** A cron field: `*`, a step, a value, a range (stepped or not), `a/n`, or a list; values in [lo, hi], `near` values likelier. */
function fieldArb(lo: number, hi: number, near: fc.Arbitrary<number>): fc.Arbitrary<string> {
  const value = fc.oneof(near, fc.integer({ min: lo, max: hi }));
  const range = fc.tuple(value, value).map(([a, b]) => (a <= b ? `${a}-${b}` : `${b}-${a}`));
  const step = fc.integer({ min: 1, max: Math.min(30, hi) });
  const entry = fc.oneof(
    value.map(String),
    range,
    fc.tuple(range, step).map(([r, n]) => `${r}/${n}`),
    fc.tuple(value, step).map(([a, n]) => `${a}/${n}`),
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('*') },
    { weight: 3, arbitrary: step.map((n) => `*/${n}`) },
    { weight: 4, arbitrary: entry },
    { weight: 2, arbitrary: fc.array(entry, { minLength: 2, maxLength: 3 }).map((l) => l.join(',')) },
  );
}

const dayFieldsArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant('* * *') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('* * 0', '* * 1-5', '* * 6,0', 'L * *', '* * 0L', '* * 0#1', '1,15 * 0'),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 0, max: 6 }))
      .map(([d, w]) => `${d} * ${w}`),
  },
);

const cronArb = fc
  .tuple(
    fc.option(fieldArb(0, 59, fc.constantFrom(0, 30)), { freq: 2 }),
    fieldArb(0, 59, fc.constantFrom(0, 15, 30, 45)),
    fieldArb(0, 23, fc.integer({ min: 0, max: 4 })),
    dayFieldsArb,
  )
  .map(([second, minute, hour, days]) => [second, minute, hour, days].filter((f) => f !== null).join(' '))
  // Only what the API accepts (it refuses, say, a list naming a value twice).
  .filter((cron) => findCronProblem(cron) === null);

describe('property: random crons over every transition of 2026-2030 in fourteen zones', () => {
  const transitions = [...EIGHT_ZONES, ...MORE_ZONES].flatMap((zone) =>
    changesIn(zone, 2026, 2030).map((change) => ({ zone, change })),
  );
  interface Case {
    transition: { zone: string; change: number };
    cron: string;
    fromMinutes: number;
    toMinutes: number;
    cutMinutes: number;
  }
  /** A cron, a window around the transition, and a cut inside it where one migration window ends. */
  const around = (transition: fc.Arbitrary<Case['transition']>): fc.Arbitrary<Case> =>
    fc.record({
      transition,
      cron: cronArb,
      fromMinutes: fc.integer({ min: -11 * 60, max: 60 }),
      toMinutes: fc.integer({ min: -60, max: 11 * 60 }),
      cutMinutes: fc.integer({ min: -180, max: 180 }),
    });

  const agrees = ({ transition: { zone, change }, cron, fromMinutes, toMinutes, cutMinutes }: Case) => {
    const from = change + Math.min(fromMinutes, toMinutes) * MINUTE;
    const to = change + Math.max(fromMinutes, toMinutes) * MINUTE + MINUTE;
    const cut = Math.min(Math.max(change + cutMinutes * MINUTE, from), to);
    const schedule = parseCron(cron);
    const expected = referenceRuns(cron, scanAround(zone, change), from, to);
    expect(iso(expandRuns(schedule, zone, from, to))).toEqual(iso(expected));
    expect(iso([...expandRuns(schedule, zone, from, cut), ...expandRuns(schedule, zone, cut, to)])).toEqual(
      iso(expected),
    );
    // The next runs, as preview and misfire read them, come from the same expansion.
    const next = nextRuns(schedule, zone, from - 1, 5);
    expect(iso(next.filter((t) => t < to))).toEqual(iso(expected.slice(0, 5)));
  };

  it('covers at least ten zones and every transition found', () => {
    expect(new Set(transitions.map((t) => t.zone)).size).toBeGreaterThanOrEqual(10);
    expect(transitions.length).toBeGreaterThan(100);
  });

  it('finds no difference at any of them, three crons each, with fixed seeds', () => {
    transitions.forEach((transition, i) => {
      fc.assert(fc.property(around(fc.constant(transition)), agrees), { seed: 20270314 + i, numRuns: 3 });
    });
  }, 120_000);

  it('finds no difference at random ones, with a random seed (printed on failure)', () => {
    fc.assert(fc.property(around(fc.constantFrom(...transitions)), agrees), { numRuns: 300 });
  }, 120_000);
});
