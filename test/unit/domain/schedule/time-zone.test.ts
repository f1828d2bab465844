import { describe, expect, it } from 'vitest';
import {
  formatInZone,
  isValidTimeZone,
  offsetAt,
  wallTimeAt,
  wallToInstant,
} from '../../../../src/domain/schedule/time-zone.js';

const HOUR = 3600_000;
const at = (iso: string) => Date.parse(iso);
const wall = (iso: string) => Date.parse(`${iso}Z`);

describe('isValidTimeZone', () => {
  it.each([
    'UTC',
    'Etc/UTC',
    'Asia/Shanghai',
    'Asia/Kolkata',
    'America/New_York',
    'Europe/Berlin',
    'Asia/Kathmandu',
    // Links of the tz database, deprecated names included.
    'US/Eastern',
    'Asia/Calcutta',
    'Europe/Kiev',
    'EST5EDT',
    'GB',
  ])('knows %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });

  it.each([
    '',
    'Mars/Olympus_Mons',
    'Asia/Shanghai ',
    'Not A Zone',
    'x'.repeat(65),
    // Intl takes these, the tz database has none of them.
    'us/eastern',
    'america/new_york',
    'PST',
    'AET',
    'SystemV/EST5',
    'Factory',
    '+05:00',
  ])('rejects %j', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });
});

describe('offsetAt', () => {
  it('is zero for UTC and fixed for zones without DST', () => {
    expect(offsetAt('UTC', at('2026-07-01T00:00:00Z'))).toBe(0);
    expect(offsetAt('Asia/Shanghai', at('2026-01-01T00:00:00Z'))).toBe(8 * HOUR);
    expect(offsetAt('Asia/Shanghai', at('2026-07-01T00:00:00Z'))).toBe(8 * HOUR);
    expect(offsetAt('Asia/Kolkata', at('2026-07-01T00:00:00Z'))).toBe(5.5 * HOUR);
    expect(offsetAt('Asia/Kathmandu', at('2026-07-01T00:00:00Z'))).toBe(5.75 * HOUR);
  });

  it('changes at the DST transition instant', () => {
    // New York springs forward at 2026-03-08 07:00Z (02:00 EST).
    expect(offsetAt('America/New_York', at('2026-03-08T06:59:59Z'))).toBe(-5 * HOUR);
    expect(offsetAt('America/New_York', at('2026-03-08T07:00:00Z'))).toBe(-4 * HOUR);
    // Berlin falls back at 2026-10-25 01:00Z (03:00 CEST).
    expect(offsetAt('Europe/Berlin', at('2026-10-25T00:59:59Z'))).toBe(2 * HOUR);
    expect(offsetAt('Europe/Berlin', at('2026-10-25T01:00:00Z'))).toBe(1 * HOUR);
  });

  it('agrees with Intl every 3 hours of 2026-2030, and a second either side of each change', () => {
    for (const zone of ['America/New_York', 'Australia/Lord_Howe', 'Africa/Casablanca', 'Asia/Shanghai']) {
      const f = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' });
      const intl = (t: number) =>
        Date.parse(`${f.format(t).replace(' ', 'T')}Z`) - Math.floor(t / 1000) * 1000;
      const changes: number[] = [];
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2031, 0, 1); t += 3 * HOUR) {
        expect(offsetAt(zone, t)).toBe(intl(t));
        // Where the offset changed since the last reading, find the second it did by the table.
        if (offsetAt(zone, t) !== offsetAt(zone, t - 3 * HOUR)) {
          let lo = t - 3 * HOUR;
          let hi = t;
          while (hi - lo > 1000) {
            const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
            if (offsetAt(zone, mid) === offsetAt(zone, lo)) lo = mid;
            else hi = mid;
          }
          changes.push(hi);
          for (const probe of [hi - 1000, hi - 1, hi, hi + 1000])
            expect(offsetAt(zone, probe)).toBe(intl(probe));
        }
      }
      expect(changes.length > 0).toBe(zone !== 'Asia/Shanghai');
    }
  });
});

describe('wallTimeAt', () => {
  it('gives the local calendar fields of an instant', () => {
    expect(wallTimeAt('Asia/Shanghai', at('2026-12-31T16:30:05Z'))).toEqual({
      year: 2027,
      month: 1,
      day: 1,
      hour: 0,
      minute: 30,
      second: 5,
    });
    expect(wallTimeAt('UTC', at('2026-12-31T16:30:05Z'))).toMatchObject({ year: 2026, hour: 16 });
  });

  it('shows midnight as hour 0, not 24', () => {
    expect(wallTimeAt('America/New_York', at('2026-06-01T04:00:00Z')).hour).toBe(0);
  });
});

describe('wallToInstant', () => {
  it('maps an ordinary wall time through the zone offset', () => {
    expect(wallToInstant('Asia/Shanghai', wall('2026-01-02T02:30:00'))).toBe(at('2026-01-01T18:30:00Z'));
    expect(wallToInstant('UTC', wall('2026-01-02T02:30:00'))).toBe(at('2026-01-02T02:30:00Z'));
  });

  it('shifts a wall time in a spring-forward gap forward (02:30 → 03:30 EDT)', () => {
    expect(wallToInstant('America/New_York', wall('2026-03-08T02:30:00'))).toBe(at('2026-03-08T07:30:00Z'));
    expect(wallToInstant('Europe/Berlin', wall('2026-03-29T02:30:00'))).toBe(at('2026-03-29T01:30:00Z'));
  });

  it('takes the first occurrence of a wall time in a fall-back overlap', () => {
    expect(wallToInstant('America/New_York', wall('2026-11-01T01:30:00'))).toBe(at('2026-11-01T05:30:00Z'));
    expect(wallToInstant('Europe/Berlin', wall('2026-10-25T02:30:00'))).toBe(at('2026-10-25T00:30:00Z'));
  });
});

describe('formatInZone', () => {
  it.each([
    ['2026-11-22T02:00:00Z', 'Asia/Shanghai', '2026-11-22T10:00:00.000+08:00'],
    ['2026-11-22T02:00:00.123Z', 'UTC', '2026-11-22T02:00:00.123+00:00'],
    ['2026-01-01T00:00:00Z', 'Asia/Kolkata', '2026-01-01T05:30:00.000+05:30'],
    ['2026-01-01T00:00:00Z', 'Asia/Kathmandu', '2026-01-01T05:45:00.000+05:45'],
    ['2026-01-01T00:00:00Z', 'America/St_Johns', '2025-12-31T20:30:00.000-03:30'],
    ['2026-07-01T12:00:00Z', 'America/New_York', '2026-07-01T08:00:00.000-04:00'],
    ['2026-01-01T12:00:00Z', 'America/New_York', '2026-01-01T07:00:00.000-05:00'],
  ])('formats %s in %s as %s', (iso, zone, expected) => {
    expect(formatInZone(at(iso), zone)).toBe(expected);
  });

  it('round-trips: the formatted string parses back to the same instant', () => {
    for (const zone of ['Asia/Shanghai', 'America/New_York', 'Europe/Berlin', 'Asia/Kathmandu']) {
      for (let t = at('2026-10-24T00:00:00Z'); t < at('2026-10-27T00:00:00Z'); t += 17 * 60_000 + 123) {
        expect(Date.parse(formatInZone(t, zone))).toBe(t);
      }
    }
  });

  it('shows both sides of an overlap with their own offsets', () => {
    expect(formatInZone(at('2026-11-01T05:30:00Z'), 'America/New_York')).toBe(
      '2026-11-01T01:30:00.000-04:00',
    );
    expect(formatInZone(at('2026-11-01T06:30:00Z'), 'America/New_York')).toBe(
      '2026-11-01T01:30:00.000-05:00',
    );
  });
});
