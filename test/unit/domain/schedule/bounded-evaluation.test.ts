import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorBody, statusOf, toXtimerError } from '../../../../http/errors.js';
import {
  EvaluationBudget,
  evaluationTally,
  ScheduleTooCostlyError,
} from '../../../../src/domain/evaluation-budget.js';
import { changeHorizon, planWindow } from '../../../../src/domain/plan/plan-window.js';
import {
  expandRuns,
  findCronProblem,
  nextRuns,
  parseCron,
} from '../../../../src/domain/schedule/cron-schedule.js';
import { formatInZone } from '../../../../src/domain/schedule/time-zone.js';
import { scheduleOf } from '../../../../src/domain/schedule/timer-schedule.js';
import { offsetChangesBetween } from '../../../../src/domain/schedule/zone-transitions.js';
import { readCron, referenceRuns, scanWallClock } from '../../../helpers/wall-clock-reference.js';

/**
 * Every evaluation of a schedule is bounded: it skips what cannot fire a field at a time,
 * stops once it has what it was asked for, and past a hard cap answers with an error
 * naming the schedule instead of stalling the process.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const HORIZON = 5 * 366 * DAY;
const at = (iso: string) => Date.parse(iso);
const iso = (runs: number[]) => runs.map((t) => new Date(t).toISOString());
/** A budget without a cap, to read what a call spent. */
const meter = () => new EvaluationBudget(() => 'test', Number.POSITIVE_INFINITY);

/** The report's case: quiet for years, then every second. */
const QUIET_UNTIL_2030 = '* * * * * * 2030';
const NOW = at('2026-11-26T08:00:00Z');

/** The largest offset change of `zone` in [fromMs, toMs), in seconds (0: none). */
function largestStep(zone: string, fromMs: number, toMs: number): number {
  const steps = offsetChangesBetween(zone, fromMs, toMs).map((c) => Math.abs(c.after - c.before) / SECOND);
  return Math.max(0, ...steps);
}

describe('skipping what cannot fire, a field at a time', () => {
  it('finds the first run of a cron quiet until 2030 without building an instant of the years before', () => {
    const budget = meter();
    const runs = nextRuns(
      parseCron(QUIET_UNTIL_2030, { allowYear: true }),
      'America/New_York',
      NOW,
      1,
      HORIZON,
      budget,
    );
    expect(runs.map((t) => formatInZone(t, 'America/New_York'))).toEqual(['2030-01-01T00:00:00.000-05:00']);
    expect(budget.instants).toBe(1);
    expect(budget.days).toBeLessThan(20);
  });

  it('builds the instants asked for and no more, however dense the schedule', () => {
    for (const count of [1, 120, 10_001]) {
      const budget = meter();
      const runs = nextRuns(parseCron('* * * * * *'), 'Europe/Berlin', NOW, count, HORIZON, budget);
      expect(runs).toHaveLength(count);
      expect(budget.instants).toBe(count);
    }
  });

  it('on a day the clock changes, builds at most an hour of wall times beyond the count', () => {
    // New York springs forward on 2030-03-10.
    const budget = meter();
    const runs = nextRuns(
      parseCron('* * * 10 3 * 2030', { allowYear: true }),
      'America/New_York',
      NOW,
      1,
      HORIZON,
      budget,
    );
    expect(runs.map((t) => formatInZone(t, 'America/New_York'))).toEqual(['2030-03-10T00:00:00.000-05:00']);
    expect(budget.instants).toBeLessThanOrEqual(1 + 3600 + 2 * 60);
  });

  it('looks at no day of a year the cron does not name', () => {
    const budget = meter();
    expect(
      nextRuns(parseCron('0 0 0 * * ? 2100', { allowYear: true }), 'UTC', NOW, 5, HORIZON, budget),
    ).toEqual([]);
    expect(budget.spent).toBe(0);
  });

  it('looks only at the 31st of months that have one, and at no day of the other months', () => {
    const budget = meter();
    const runs = nextRuns(parseCron('0 0 12 31 * *'), 'UTC', NOW, 7, HORIZON, budget);
    expect(iso(runs)).toEqual(
      iso(
        [
          '2026-12-31',
          '2027-01-31',
          '2027-03-31',
          '2027-05-31',
          '2027-07-31',
          '2027-08-31',
          '2027-10-31',
        ].map((d) => at(`${d}T12:00:00Z`)),
      ),
    );
    expect(budget.days).toBeLessThan(60);
  });

  it('finds a fifth Friday or a last day by looking at days, not instants', () => {
    for (const cron of ['* * * ? * 5#5', '* * * L 2 ?']) {
      const budget = meter();
      const [first] = nextRuns(parseCron(cron), 'Australia/Lord_Howe', NOW, 1, HORIZON, budget);
      expect(first, cron).toBeDefined();
      expect(budget.instants, cron).toBe(1);
      expect(budget.days, cron).toBeLessThan(500);
    }
  });
});

describe('a hard cap on the work of each call', () => {
  it('answers past its budget with an error naming the cron and zone, not a stall', () => {
    const schedule = parseCron('* * * * * *');
    const budget = new EvaluationBudget(() => 'cron "* * * * * *" in UTC', 1000);
    expect(() => expandRuns(schedule, 'UTC', NOW, NOW + DAY, { budget })).toThrow(ScheduleTooCostlyError);
    expect(() => expandRuns(schedule, 'UTC', NOW, NOW + DAY, { budget })).toThrow(
      /cron "\* \* \* \* \* \*" in UTC/,
    );
  });

  it('gives every call of a timer’s schedule its own cap, naming the cron as written', () => {
    const timer = { cron: '* * * * * *', at: null, timezone: 'Europe/Berlin', startAt: null, endAt: null };
    // Twelve days of an every-second cron is past the cap: no plan or search the service makes asks that much.
    const asked = () => scheduleOf(timer).runsBetween(NOW, NOW + 12 * DAY);
    expect(asked).toThrow(ScheduleTooCostlyError);
    expect(asked).toThrow(/^cron "\* \* \* \* \* \*" in Europe\/Berlin takes more than 1,000,000 steps/);
    // The cap is per call: an ordinary call of the same schedule still answers.
    expect(scheduleOf(timer).runsBetween(NOW, NOW + HOUR)).toHaveLength(3600);
  });

  it('counts an interval’s instants before building them', () => {
    const timer = { cron: null, everyMs: 1000, at: null, timezone: 'UTC', startAt: null, endAt: null };
    const heap = process.memoryUsage().heapUsed;
    expect(() => scheduleOf(timer).runsBetween(NOW, NOW + 365 * DAY)).toThrow(
      /^every 1000 ms takes more than/,
    );
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(16 * 1024 * 1024);
  });
});

describe(`the report’s cron (${QUIET_UNTIL_2030}, America/New_York)`, () => {
  const timer = {
    cron: QUIET_UNTIL_2030,
    at: null,
    timezone: 'America/New_York',
    startAt: null,
    endAt: null,
    id: 7,
    app: 'billing',
    name: 'burst',
    jitterMs: 0,
    everyMs: null,
    offsetMs: 0,
  };
  /** What preview, create, enable and a dry-run apply ask of a schedule. */
  const everyQuestion = () => {
    const schedule = scheduleOf({ ...timer });
    return [
      schedule.next(NOW, 1),
      schedule.next(NOW, 100),
      schedule.explain(NOW, 5),
      schedule.shortestGap(NOW),
      changeHorizon(timer, NOW, 60),
      planWindow({ ...timer, maxRuns: null, runsPlanned: 0, finalRunAt: null }, NOW, NOW + 2 * HOUR).runAts,
    ];
  };

  it('answers every question preview, create, enable and apply ask with a few hundred instants, in well under 50 ms', () => {
    everyQuestion(); // the zone's offsets of 2030, read once per process
    const before = { ...evaluationTally };
    const heap = process.memoryUsage().heapUsed;
    const started = performance.now();
    const [next, hundred, , gap] = everyQuestion();
    const elapsed = performance.now() - started;
    // The work itself is the measure: the clock below only catches a gross regression.
    // next 1 + next 100 + explain 5 (one more, for jitter) + the gap's 120 + changeHorizon's 5.
    expect(evaluationTally.instants - before.instants).toBeLessThanOrEqual(1 + 100 + 6 + 120 + 5);
    expect(evaluationTally.days - before.days).toBeLessThan(100);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(32 * 1024 * 1024);
    expect(elapsed).toBeLessThan(50);
    expect(iso(next as number[])).toEqual(['2030-01-01T05:00:00.000Z']);
    expect(hundred).toHaveLength(100);
    expect(gap).toBe(1000);
  });
});

/** A cron field: `*`, a step, a value, a range (stepped or not), or a list. */
function fieldArb(lo: number, hi: number): fc.Arbitrary<string> {
  const value = fc.integer({ min: lo, max: hi });
  const range = fc.tuple(value, value).map(([a, b]) => (a <= b ? `${a}-${b}` : `${b}-${a}`));
  const step = fc.integer({ min: 1, max: Math.min(30, hi) });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant('*') },
    { weight: 2, arbitrary: step.map((n) => `*/${n}`) },
    { weight: 2, arbitrary: value.map(String) },
    { weight: 2, arbitrary: range },
    { weight: 1, arbitrary: fc.tuple(range, step).map(([r, n]) => `${r}/${n}`) },
    { weight: 1, arbitrary: fc.uniqueArray(value, { minLength: 2, maxLength: 3 }).map((l) => l.join(',')) },
  );
}

/** Day fields with the sparse forms: the 31st, `L`, `W`, `#`, `dL`. */
const domArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: fc.constantFrom('L', '31', '30,31', '29', '?', '1') },
  { weight: 1, arbitrary: fc.constantFrom('LW', '15W') },
  { weight: 2, arbitrary: fieldArb(1, 31) },
);
const dowArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: fc.constantFrom('5#5', '1#1', '0L', '5L', '1-5', '?') },
  { weight: 2, arbitrary: fieldArb(0, 6) },
);
const yearArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: fc.integer({ min: 1971, max: 2199 }).map(String) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 1971, max: 2199 }), fc.integer({ min: 0, max: 4 }))
      .map(([a, n]) => `${a}-${Math.min(2199, a + n)}`),
  },
);
const cronArb = (days = fc.tuple(domArb, dowArb)) =>
  fc
    .tuple(fieldArb(0, 59), fieldArb(0, 59), fieldArb(0, 23), days, fieldArb(1, 12), yearArb)
    .map(([s, m, h, [dom, dow], month, year]) =>
      [s, m, h, dom, month, dow, ...(year ? [year] : [])].join(' '),
    )
    .filter((cron) => findCronProblem(cron, { allowYear: true }) === null);

/** Zones with DST, half-hour steps, two-hour steps, midnight changes and suspensions. */
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/Santiago',
  'America/Havana',
  'Africa/Casablanca',
  'Antarctica/Troll',
  'Antarctica/Casey',
  'America/St_Johns',
  'Asia/Gaza',
  'Asia/Kathmandu',
  'Europe/Dublin',
  'Europe/Moscow',
];

describe('property: a bound on instants built per evaluation', () => {
  // Wall times near a clock change are read with either offset: up to a change's width of
  // them on each side of a window can fall outside it.
  it('builds at most the instants asked for, twice the widest clock change and twenty minutes more, and looks at a day of the horizon at most thrice', () => {
    fc.assert(
      fc.property(
        cronArb(),
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2199, 0, 1) }),
        fc.integer({ min: 1, max: 300 }),
        (cron, zone, after, count) => {
          const budget = meter();
          const runs = nextRuns(parseCron(cron, { allowYear: true }), zone, after, count, HORIZON, budget);
          expect(runs.length).toBeLessThanOrEqual(count);
          for (const [i, t] of runs.entries())
            expect(t).toBeGreaterThan(i === 0 ? after : (runs[i - 1] as number));
          const step = largestStep(zone, after - DAY, after + HORIZON + DAY);
          expect(budget.instants).toBeLessThanOrEqual(count + 2 * step + 20 * 60);
          expect(budget.days).toBeLessThanOrEqual((3 * HORIZON) / DAY);
        },
      ),
      { numRuns: 400 },
    );
  }, 60_000);

  it('keeps the bound with large counts across clock changes, where instants come out of order, and gives the wall clock’s runs', () => {
    const transitions = ZONES.filter((z) => z !== 'UTC').flatMap((zone) =>
      offsetChangesBetween(zone, Date.UTC(2024, 0, 1), Date.UTC(2027, 0, 1)).map((c) => ({
        zone,
        change: c.at,
      })),
    );
    const dense = fc
      .tuple(fieldArb(0, 59), fieldArb(0, 59), fc.constantFrom('*', '0-3', '1-2', '*/2', '22-23', '0,2'))
      .map(([s, m, h]) => `${s} ${m} ${h} * * *`)
      .filter((cron) => findCronProblem(cron) === null);
    fc.assert(
      fc.property(
        dense,
        fc.constantFrom(...transitions),
        fc.integer({ min: -20 * 60, max: 60 }),
        fc.integer({ min: 1, max: 5000 }),
        (cron, { zone, change }, minutes, count) => {
          const after = change + minutes * MINUTE + 137;
          const budget = meter();
          const runs = nextRuns(parseCron(cron), zone, after, count, HORIZON, budget);
          const step = largestStep(zone, after - DAY, after + HORIZON + DAY);
          expect(budget.instants).toBeLessThanOrEqual(count + 2 * step + 20 * 60);
          const scanEnd = change + 24 * HOUR;
          const scan = scanWallClock(zone, after - 26 * HOUR, scanEnd + 26 * HOUR);
          const expected = referenceRuns(cron, scan, after + 1, scanEnd).slice(0, count);
          expect(iso(runs.filter((t) => t < scanEnd))).toEqual(iso(expected));
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);

  it('skips years, months and days to the same runs a day-by-day reading of the cron finds (UTC)', () => {
    // The reference reads every day of the horizon; it knows no W.
    const days = fc.tuple(fc.oneof(domArb.filter((d) => !d.includes('W'))), dowArb);
    fc.assert(
      fc.property(
        cronArb(days),
        fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2190, 0, 1) }),
        fc.integer({ min: 1, max: 40 }),
        (cron, after, count) => {
          const reference = readCron(cron);
          const hours = [...reference.hours].sort((a, b) => a - b);
          const minutes = [...reference.minutes].sort((a, b) => a - b);
          const seconds = [...reference.seconds].sort((a, b) => a - b);
          const expected: number[] = [];
          for (
            let day = Math.floor(after / DAY) * DAY;
            day < after + HORIZON && expected.length < count;
            day += DAY
          ) {
            if (!reference.matchesDate(new Date(day))) continue;
            for (const h of hours)
              for (const m of minutes)
                for (const s of seconds) {
                  const t = day + h * HOUR + m * MINUTE + s * SECOND;
                  if (t > after && t <= after + HORIZON && expected.length < count) expected.push(t);
                }
          }
          expect(iso(nextRuns(parseCron(cron, { allowYear: true }), 'UTC', after, count))).toEqual(
            iso(expected),
          );
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000);
});

describe('at the API’s edge', () => {
  it('is a 400 CRON_TOO_COSTLY that names the cron, with the field in its details', () => {
    const err = toXtimerError(new ScheduleTooCostlyError('cron "* * * * * *" in UTC', 1000));
    expect(statusOf(err.code)).toBe(400);
    expect(errorBody(err)).toEqual({
      error: {
        code: 'CRON_TOO_COSTLY',
        message: expect.stringMatching(/^cron "\* \* \* \* \* \*" in UTC takes more than 1,000 steps/),
        details: [{ path: 'cron', message: expect.any(String) }],
      },
    });
  });
});
