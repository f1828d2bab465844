import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import {
  CronSyntaxError,
  expandRuns,
  findCronProblem,
  nextRuns,
  parseCron,
} from '../../../../src/domain/schedule/cron-schedule.js';
import { formatInZone } from '../../../../src/domain/schedule/time-zone.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const at = (iso: string) => Date.parse(iso);
const inZone = (zone: string, runs: number[]) => runs.map((ms) => formatInZone(ms, zone));

/** cron-parser's own iterator over [start, end): its endDate is inclusive, ours exclusive. */
function referenceRuns(expression: string, tz: string, startMs: number, endMs: number): number[] {
  const it = CronExpressionParser.parse(expression, {
    tz,
    currentDate: new Date(startMs - 1000),
    endDate: new Date(endMs),
  });
  const out: number[] = [];
  while (it.hasNext()) {
    const t = it.next().getTime();
    if (t >= endMs) break;
    out.push(t);
  }
  return out;
}

describe('parseCron', () => {
  it('reads 5 fields as minute precision (second 0)', () => {
    const s = parseCron('30 2 * * *');
    expect(s.hasSeconds).toBe(false);
    expect(s.seconds).toEqual([0]);
    expect(s.minutes).toEqual([30]);
    expect(s.hours).toEqual([2]);
    expect(s.years).toBeNull();
  });

  it('reads 6 fields as seconds first', () => {
    const s = parseCron('15 30 2 * * *');
    expect(s.hasSeconds).toBe(true);
    expect(s.seconds).toEqual([15]);
    expect(s.minutes).toEqual([30]);
    expect(s.hours).toEqual([2]);
  });

  it('reads 7 fields (seconds first, trailing year) only with allowYear', () => {
    expect(() => parseCron('0 0 12 * * ? 2030')).toThrow(CronSyntaxError);
    const s = parseCron('0 0 12 * * ? 2030-2032', { allowYear: true });
    expect(s.hasSeconds).toBe(true);
    expect(s.hours).toEqual([12]);
    expect([...(s.years ?? [])]).toEqual([2030, 2031, 2032]);
    expect([...(parseCron('0 0 0 1 1 * 2030,2040/5', { allowYear: true }).years ?? [])].slice(0, 3)).toEqual([
      2030, 2040, 2045,
    ]);
    expect(parseCron('0 0 0 1 1 * *', { allowYear: true }).years?.size).toBe(2199 - 1970 + 1);
  });

  it('normalises white space in the source', () => {
    expect(parseCron('  0   30 2 * * * ').source).toBe('0 30 2 * * *');
  });

  it('accepts names, ranges, steps, L, # and @ aliases', () => {
    for (const expr of [
      '0 0 * JAN-MAR MON-FRI',
      '*/5 9-17 * * 1-5',
      '0 0 L * *',
      '0 0 * * 5#3',
      '0 0 * * 5L',
      '@daily',
      '@hourly',
    ]) {
      expect(findCronProblem(expr), expr).toBeNull();
    }
  });
});

describe('findCronProblem', () => {
  it.each([
    ['60 * * * * *', 'second'],
    ['0 61 * * * *', 'minute'],
    ['0 0 24 * * *', 'hour'],
    ['0 0 32 * *', 'dayOfMonth'],
    ['0 0 1 13 *', 'month'],
    ['0 0 * * 8', 'dayOfWeek'],
    ['0 0 * * * * 1969', 'year'],
  ])('names the field at fault in %s: %s', (expr, field) => {
    const problem = findCronProblem(expr, { allowYear: true });
    expect(problem).not.toBeNull();
    expect(problem!.field).toBe(field);
    expect(problem!.message.length).toBeGreaterThan(0);
  });

  it('says the range of an out-of-range value', () => {
    expect(findCronProblem('0 61 * * * *')!.message).toContain('0-59');
  });

  it.each([
    ['', /empty/],
    ['* * * *', /4 fields/],
    ['* * * * * * *', /7 fields, expected 5 or 6/],
    ['0 0 0 * * * 2030 x', /8 fields/],
    [`0 0 ${'1,'.repeat(80)}1 * *`, /longer than/],
    // Stored as given: padding counts (it once reached MySQL's 128-character column, a 500).
    [`0 ${' '.repeat(200)}0 * * * *`, /longer than 128/],
    [`0 0 * * * *${' '.repeat(200)}`, /longer than 128/],
  ])('explains %j', (expr, message) => {
    const problem = findCronProblem(expr);
    expect(problem).not.toBeNull();
    expect(problem!.message).toMatch(message);
  });

  it('rejects garbage', () => {
    expect(findCronProblem('every day at noon')).not.toBeNull();
    expect(findCronProblem('@sometimes')).not.toBeNull();
    expect(findCronProblem('a b c d e')).not.toBeNull();
  });

  it('accepts a 7-field expression only when allowed', () => {
    expect(findCronProblem('0 0 12 * * ? 2030')).not.toBeNull();
    expect(findCronProblem('0 0 12 * * ? 2030', { allowYear: true })).toBeNull();
  });

  it('is what parseCron throws', () => {
    try {
      parseCron('0 61 * * * *');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CronSyntaxError);
      expect((err as CronSyntaxError).problem.field).toBe('minute');
      expect((err as Error).message).toContain('minute');
    }
  });
});

describe('expandRuns', () => {
  it('is half-open: includes a run at start, excludes one at end', () => {
    const s = parseCron('0 * * * *');
    expect(expandRuns(s, 'UTC', at('2026-05-01T10:00:00Z'), at('2026-05-01T12:00:00Z'))).toEqual([
      at('2026-05-01T10:00:00Z'),
      at('2026-05-01T11:00:00Z'),
    ]);
  });

  it('returns nothing for an empty or reversed window', () => {
    const s = parseCron('* * * * * *');
    expect(expandRuns(s, 'UTC', at('2026-05-01T10:00:00Z'), at('2026-05-01T10:00:00Z'))).toEqual([]);
    expect(expandRuns(s, 'UTC', at('2026-05-01T11:00:00Z'), at('2026-05-01T10:00:00Z'))).toEqual([]);
  });

  it.each([
    ['* * * * *', 'UTC'],
    ['*/7 * * * * *', 'UTC'],
    ['0 0 * * * *', 'Asia/Kolkata'],
    ['59 59 10 * * *', 'UTC'],
    ['0 0 11 * * *', 'Asia/Kolkata'],
    ['*/13 * * * *', 'America/New_York'],
  ])('neither loses nor doubles a run across consecutive windows (%s in %s)', (expr, zone) => {
    const s = parseCron(expr);
    for (const day of ['2026-05-01', '2026-03-08', '2026-11-01']) {
      const ten = at(`${day}T10:00:00Z`);
      const eleven = ten + HOUR;
      const twelve = ten + 2 * HOUR;
      const joined = [...expandRuns(s, zone, ten, eleven), ...expandRuns(s, zone, eleven, twelve)];
      expect(joined).toEqual(expandRuns(s, zone, ten, twelve));
      expect(new Set(joined).size).toBe(joined.length);
    }
  });

  it('splits a day into many windows and gets the same runs as one window', () => {
    const s = parseCron('*/20 */7 * * * *');
    const start = at('2026-11-01T00:00:00Z');
    const end = start + 2 * DAY;
    const step = 17 * 60_000 + 3_000; // windows not aligned to anything
    const pieces: number[] = [];
    for (let from = start; from < end; from += step) {
      pieces.push(...expandRuns(s, 'America/New_York', from, Math.min(from + step, end)));
    }
    expect(pieces).toEqual(expandRuns(s, 'America/New_York', start, end));
  });

  it('returns runs ascending and unique, at whole seconds', () => {
    const runs = expandRuns(
      parseCron('*/10 * * * * *'),
      'Europe/Berlin',
      at('2026-10-24T12:00:00Z'),
      at('2026-10-26T12:00:00Z'),
    );
    for (let i = 1; i < runs.length; i++) expect(runs[i]!).toBeGreaterThan(runs[i - 1]!);
    expect(runs.every((t) => t % 1000 === 0)).toBe(true);
  });

  describe('agrees with cron-parser’s own iterator', () => {
    const YEAR_SPAN: [number, number] = [Date.UTC(2026, 0, 1), Date.UTC(2027, 2, 1)];
    // cron-parser's iterator is slow (~100 µs a run): dense schedules get shorter spans.
    const MONTHS_SPAN: [number, number] = [Date.UTC(2026, 0, 20), Date.UTC(2026, 4, 1)];
    const DAYS_SPAN: [number, number] = [Date.UTC(2026, 1, 26, 13, 7, 11), Date.UTC(2026, 2, 1, 1, 2, 3)];
    const cases: Array<[string, [number, number]]> = [
      ['0 0 * * *', YEAR_SPAN],
      ['30 2 * * *', YEAR_SPAN],
      ['0 9-17 * * 1-5', MONTHS_SPAN],
      ['0 0 1 * *', YEAR_SPAN],
      ['0 0 L * *', YEAR_SPAN],
      ['0 0 31 * *', YEAR_SPAN],
      ['0 0 29 2 *', [Date.UTC(2026, 0, 1), Date.UTC(2029, 0, 1)]],
      ['0 0 * * 5#3', YEAR_SPAN],
      ['0 0 * * 5L', YEAR_SPAN],
      ['0 12 1,15 * 1', YEAR_SPAN],
      ['15 10 * * 7', YEAR_SPAN],
      ['0 0 0 * JAN,JUL SUN', YEAR_SPAN],
      ['0 30 2 * * *', YEAR_SPAN],
      ['@weekly', YEAR_SPAN],
      ['@hourly', [Date.UTC(2026, 1, 1), Date.UTC(2026, 2, 1)]],
      ['*/7 * * * *', DAYS_SPAN],
      ['5/15 * * * * *', [Date.UTC(2026, 1, 28, 18), Date.UTC(2026, 2, 1, 2)]],
      ['* * * * *', [Date.UTC(2026, 1, 28, 12), Date.UTC(2026, 2, 1, 12)]],
    ];
    for (const zone of ['UTC', 'Asia/Kolkata']) {
      it.each(cases)(`%s in ${zone}`, (expr, [start, end]) => {
        const ours = expandRuns(parseCron(expr), zone, start, end);
        expect(ours.length).toBeGreaterThan(0);
        expect(ours).toEqual(referenceRuns(expr, zone, start, end));
      });
    }
  });

  describe('daylight saving time (a fixed time shifts out of a gap and fires an overlap once; a frequent schedule follows real time)', () => {
    it('America/New_York spring-forward: 02:30 fires once, at 03:30 EDT', () => {
      const runs = expandRuns(
        parseCron('30 2 * * *'),
        'America/New_York',
        at('2026-03-07T00:00:00Z'),
        at('2026-03-10T00:00:00Z'),
      );
      expect(inZone('America/New_York', runs)).toEqual([
        '2026-03-07T02:30:00.000-05:00',
        '2026-03-08T03:30:00.000-04:00',
        '2026-03-09T02:30:00.000-04:00',
      ]);
    });

    it('America/New_York fall-back: 01:30 fires once, at the first (EDT) 01:30', () => {
      const runs = expandRuns(
        parseCron('30 1 * * *'),
        'America/New_York',
        at('2026-10-31T00:00:00Z'),
        at('2026-11-03T00:00:00Z'),
      );
      expect(inZone('America/New_York', runs)).toEqual([
        '2026-10-31T01:30:00.000-04:00',
        '2026-11-01T01:30:00.000-04:00',
        '2026-11-02T01:30:00.000-05:00',
      ]);
    });

    it('America/New_York fall-back: every 30 minutes fires the repeated hour twice, 30 minutes apart throughout', () => {
      const zone = 'America/New_York';
      const runs = expandRuns(
        parseCron('*/30 * * * *'),
        zone,
        at('2026-11-01T04:00:00Z'),
        at('2026-11-01T09:00:00Z'),
      );
      const walls = inZone(zone, runs).map((s) => s.slice(11, 16));
      expect(walls).toEqual([
        '00:00',
        '00:30',
        '01:00',
        '01:30',
        '01:00',
        '01:30',
        '02:00',
        '02:30',
        '03:00',
        '03:30',
      ]);
      expect(runs.slice(1).every((t, i) => t - runs[i]! === 30 * 60_000)).toBe(true);
    });

    it('America/New_York spring-forward: every 30 minutes skips nothing but the missing hour', () => {
      const zone = 'America/New_York';
      const runs = expandRuns(
        parseCron('*/30 * * * *'),
        zone,
        at('2026-03-08T05:00:00Z'),
        at('2026-03-08T09:00:00Z'),
      );
      expect(inZone(zone, runs).map((s) => s.slice(11, 16))).toEqual([
        '00:00',
        '00:30',
        '01:00',
        '01:30',
        '03:00',
        '03:30',
        '04:00',
        '04:30',
      ]);
    });

    it('Europe/Berlin spring-forward (2026-03-29): 02:30 fires once, at 03:30 CEST', () => {
      const runs = expandRuns(
        parseCron('30 2 * * *'),
        'Europe/Berlin',
        at('2026-03-28T00:00:00Z'),
        at('2026-03-31T00:00:00Z'),
      );
      expect(inZone('Europe/Berlin', runs)).toEqual([
        '2026-03-28T02:30:00.000+01:00',
        '2026-03-29T03:30:00.000+02:00',
        '2026-03-30T02:30:00.000+02:00',
      ]);
    });

    it('Europe/Berlin fall-back (2026-10-25): 02:30 fires once, at the first (CEST) 02:30', () => {
      const runs = expandRuns(
        parseCron('30 2 * * *'),
        'Europe/Berlin',
        at('2026-10-24T00:00:00Z'),
        at('2026-10-27T00:00:00Z'),
      );
      expect(inZone('Europe/Berlin', runs)).toEqual([
        '2026-10-24T02:30:00.000+02:00',
        '2026-10-25T02:30:00.000+02:00',
        '2026-10-26T02:30:00.000+01:00',
      ]);
    });

    it('Europe/Berlin fall-back: every 30 minutes fires the repeated hour twice', () => {
      const zone = 'Europe/Berlin';
      const runs = expandRuns(
        parseCron('*/30 * * * *'),
        zone,
        at('2026-10-24T22:00:00Z'),
        at('2026-10-25T03:00:00Z'),
      );
      const walls = inZone(zone, runs).map((s) => s.slice(11, 16));
      expect(walls).toEqual([
        '00:00',
        '00:30',
        '01:00',
        '01:30',
        '02:00',
        '02:30',
        '02:00',
        '02:30',
        '03:00',
        '03:30',
      ]);
    });

    it('Europe/Berlin spring-forward: every 30 minutes skips only the missing hour', () => {
      const zone = 'Europe/Berlin';
      const runs = expandRuns(
        parseCron('*/30 * * * *'),
        zone,
        at('2026-03-28T23:00:00Z'),
        at('2026-03-29T03:00:00Z'),
      );
      expect(inZone(zone, runs).map((s) => s.slice(11, 16))).toEqual([
        '00:00',
        '00:30',
        '01:00',
        '01:30',
        '03:00',
        '03:30',
        '04:00',
        '04:30',
      ]);
    });

    it('fires a seconds-precision schedule through both occurrences of the repeated hour', () => {
      const zone = 'America/New_York';
      const start = at('2026-11-01T05:00:00Z');
      const runs = expandRuns(parseCron('*/15 * * * * *'), zone, start, start + 2 * HOUR);
      // 01:00-01:59 EDT is 05:00-05:59Z, 01:00-01:59 EST is 06:00-06:59Z: every 15 s of both.
      expect(runs).toEqual(Array.from({ length: (2 * 3600) / 15 }, (_, i) => start + i * 15_000));
    });
  });

  it('honours the year field of a 7-field expression', () => {
    const s = parseCron('0 0 12 1 1 ? 2028', { allowYear: true });
    const runs = expandRuns(s, 'UTC', Date.UTC(2026, 0, 1), Date.UTC(2031, 0, 1));
    expect(runs).toEqual([Date.UTC(2028, 0, 1, 12)]);
  });
});

describe('nextRuns', () => {
  it('gives the next runs strictly after the instant, ascending', () => {
    const s = parseCron('0 30 2 * * *');
    const after = at('2026-01-01T18:30:00Z'); // 02:30 in Shanghai, Jan 2
    expect(inZone('Asia/Shanghai', nextRuns(s, 'Asia/Shanghai', after, 3))).toEqual([
      '2026-01-03T02:30:00.000+08:00',
      '2026-01-04T02:30:00.000+08:00',
      '2026-01-05T02:30:00.000+08:00',
    ]);
    expect(nextRuns(s, 'Asia/Shanghai', after - 1, 1)).toEqual([after]);
  });

  it('finds a run years ahead (a leap day), searching up to its horizon', () => {
    const s = parseCron('0 0 29 2 *');
    const after = at('2026-03-01T00:00:00Z');
    // The default horizon is about five years: 2028 is within it, 2032 is not.
    expect(nextRuns(s, 'UTC', after, 2)).toEqual([at('2028-02-29T00:00:00Z')]);
    expect(nextRuns(s, 'UTC', after, 2, 10 * 366 * 24 * 3600_000)).toEqual([
      at('2028-02-29T00:00:00Z'),
      at('2032-02-29T00:00:00Z'),
    ]);
  });

  it('stops at the horizon when the schedule ends (a past year)', () => {
    const s = parseCron('0 0 0 1 1 ? 2027', { allowYear: true });
    expect(nextRuns(s, 'UTC', at('2026-06-01T00:00:00Z'), 5)).toEqual([at('2027-01-01T00:00:00Z')]);
    expect(nextRuns(s, 'UTC', at('2027-06-01T00:00:00Z'), 5)).toEqual([]);
  });

  it('returns exactly count runs of a dense schedule', () => {
    const runs = nextRuns(parseCron('* * * * * *'), 'UTC', at('2026-01-01T00:00:00.500Z'), 100);
    expect(runs).toHaveLength(100);
    expect(runs[0]).toBe(at('2026-01-01T00:00:01Z'));
    expect(runs[99]).toBe(at('2026-01-01T00:01:40Z'));
  });
});
