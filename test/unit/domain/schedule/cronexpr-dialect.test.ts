import { describe, expect, it } from 'vitest';
import { CronSyntaxError, nextRuns, parseCron } from '../../../../src/domain/schedule/cron-schedule.js';
import { cronexprFromNative, nativeFromCronexpr } from '../../../../src/domain/schedule/cronexpr-dialect.js';

/**
 * The Go xTimer's cron dialect (gorhill/cronexpr): what each expression means there, and
 * that the native form it becomes fires at exactly those instants.
 */

/** Monday 2026-06-01, 00:00 UTC (just before it). */
const FROM = Date.parse('2026-06-01T00:00:00Z') - 1;
const iso = (runs: number[]) => runs.map((ms) => new Date(ms).toISOString().replace('.000Z', 'Z'));
const firesAt = (native: string, count: number, from = FROM) =>
  iso(nextRuns(parseCron(native, { allowYear: true }), 'UTC', from, count));

describe('nativeFromCronexpr', () => {
  it.each([
    // 6 fields: minute … day-of-week and a trailing YEAR, second 0.
    ['30 2 * * * 2027', '0 30 2 * * * 2027', ['2027-01-01T02:30:00Z', '2027-01-02T02:30:00Z']],
    ['30 2 * * * *', '30 2 * * *', ['2026-06-01T02:30:00Z', '2026-06-02T02:30:00Z']],
    ['0 */5 * * * ?', '0 */5 * * *', ['2026-06-01T00:00:00Z', '2026-06-01T05:00:00Z']],
    ['0 0 * * * 2027/2', '0 0 0 * * * 2027/2', ['2027-01-01T00:00:00Z', '2027-01-02T00:00:00Z']],
    // 5 fields: second 0, any year.
    ['30 2 * * *', '30 2 * * *', ['2026-06-01T02:30:00Z', '2026-06-02T02:30:00Z']],
    [
      '*/59 * * * *',
      '*/59 * * * *',
      ['2026-06-01T00:00:00Z', '2026-06-01T00:59:00Z', '2026-06-01T01:00:00Z'],
    ],
    ['? ? ? ? ?', '? ? ? ? ?', ['2026-06-01T00:00:00Z', '2026-06-01T00:01:00Z']],
    ['1,,2 * * * *', '1,2 * * * *', ['2026-06-01T00:01:00Z', '2026-06-01T00:02:00Z']],
    // 7 fields: seconds first, year last.
    ['0 30 2 * * * 2027', '0 30 2 * * * 2027', ['2027-01-01T02:30:00Z', '2027-01-02T02:30:00Z']],
    ['15 30 2 * * ? *', '15 30 2 * * ? *', ['2026-06-01T02:30:15Z', '2026-06-02T02:30:15Z']],
    ['0 30 2 * * ? *', '30 2 * * ?', ['2026-06-01T02:30:00Z', '2026-06-02T02:30:00Z']],
    ['*/20 * * * * * *', '*/20 * * * * * *', ['2026-06-01T00:00:00Z', '2026-06-01T00:00:20Z']],
    // Names in any case, full or short; 7 is Sunday; L and # in their fields.
    ['0 0 1 january monday', '0 0 1 JAN MON', ['2027-01-01T00:00:00Z', '2027-01-04T00:00:00Z']],
    [
      '0 0 * * 5-7',
      '0 0 * * 5-7',
      ['2026-06-05T00:00:00Z', '2026-06-06T00:00:00Z', '2026-06-07T00:00:00Z', '2026-06-12T00:00:00Z'],
    ],
    ['0 12 * * 5l', '0 12 * * 5L', ['2026-06-26T12:00:00Z', '2026-07-31T12:00:00Z']],
    ['0 12 * * fri#3', '0 12 * * FRI#3', ['2026-06-19T12:00:00Z', '2026-07-17T12:00:00Z']],
    ['0 0 L * *', '0 0 L * *', ['2026-06-30T00:00:00Z', '2026-07-31T00:00:00Z']],
  ])('reads %j as cronexpr does (native %j)', (expression, native, expected) => {
    expect(nativeFromCronexpr(expression)).toBe(native);
    expect(firesAt(native, expected.length)).toEqual(expected);
  });

  it.each([
    ['@yearly', '0 0 1 1 *', ['2027-01-01T00:00:00Z']],
    ['@annually', '0 0 1 1 *', ['2027-01-01T00:00:00Z']],
    ['@monthly', '0 0 1 * *', ['2026-06-01T00:00:00Z', '2026-07-01T00:00:00Z']],
    ['@weekly', '0 0 * * 0', ['2026-06-07T00:00:00Z', '2026-06-14T00:00:00Z']],
    ['@daily', '0 0 * * *', ['2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z']],
    ['@hourly', '0 * * * *', ['2026-06-01T00:00:00Z', '2026-06-01T01:00:00Z']],
  ])('reads the macro %s as cronexpr defines it', (macro, native, expected) => {
    expect(nativeFromCronexpr(macro)).toBe(native);
    expect(firesAt(native, expected.length)).toEqual(expected);
  });

  it('never answers a 6-field form, which the two dialects read differently', () => {
    for (const e of ['30 2 * * * 2027', '30 2 * * * *', '15 30 2 * * ? *', '0 30 2 * * * *', '* * * * * *']) {
      expect(nativeFromCronexpr(e).split(' ')).not.toHaveLength(6);
    }
  });

  it.each([
    ['@reboot', /expected 5, 6 .* or 7/],
    ['@minutely', /expected 5, 6/],
    ['@DAILY', /expected 5, 6/],
    // Names an object's prototype carries are not macros.
    ['__proto__', /has 1 fields/],
    ['toString', /has 1 fields/],
    ['constructor', /has 1 fields/],
    ['* * * *', /has 4 fields/],
    ['0 0 0 * * * * extra', /has 8 fields/],
    ['', /is empty/],
    ['61 0 * * *', /minute: "61"/],
    ['0 24 * * *', /hour: "24"/],
    ['*/60 * * * *', /minute: "\*\/60": the step must be 1-59/],
    ['0 0 * * */7', /dayOfWeek: .*step must be 1-6/],
    ['0 0 * * 8', /dayOfWeek: "8"/],
    ['0 0 * * * 2100', /year: "2100"/],
    ['0 0 * * * 1969', /year: "1969"/],
    ['0 12 15W * *', /dayOfMonth: "15W": W \(nearest weekday\)/],
    ['0 12 LW * *', /dayOfMonth: "LW"/],
    ['0 0 H * *', /dayOfMonth: "H"/],
    ['0 0 5-1 * *', /dayOfMonth/],
    [`0 0 * * * ${'2027,'.repeat(30)}2028`, /longer than 128/],
  ])('refuses %j, saying why', (expression, why) => {
    expect(() => nativeFromCronexpr(expression)).toThrow(CronSyntaxError);
    expect(() => nativeFromCronexpr(expression)).toThrow(why);
  });
});

describe('cronexprFromNative', () => {
  it.each([
    ['0 30 2 * * *', '0 30 2 * * * *'],
    ['*/5 * * * * *', '*/5 * * * * * *'],
    ['30 2 * * *', '30 2 * * *'],
    ['0 0 12 * * ? 2031', '0 0 12 * * ? 2031'],
    ['0 0 * JAN MON', '0 0 * JAN MON'],
    ['0 0 1,L * 5#3', '0 0 1,L * 5#3'],
    ['@daily', '@daily'],
    ['@weekly', '@weekly'],
    // cron-parser's own macros and syntax, spelled out in fields cronexpr reads.
    ['@weekdays', '0 0 0 * * 1-5 *'],
    ['@minutely', '0 * * * * * *'],
    ['@secondly', '* * * * * * *'],
    ['*/90 * * * *', '0 0 * * * * *'],
  ])('shows the native %j to a Go client as %j', (native, shown) => {
    expect(cronexprFromNative(native)).toBe(shown);
  });

  it('shows every native form as one that cronexpr reads the same way', () => {
    const natives = [
      '0 30 2 * * *',
      '*/5 * * * * *',
      '30 2 * * *',
      '0 0 12 * * ? 2031',
      '0 0 * JAN MON',
      '0 0 1,L * 5#3',
      '0 12 * * 5L',
      '@daily',
      '@weekdays',
      '@weekends',
      '@minutely',
      '*/90 * * * *',
    ];
    for (const native of natives) {
      const back = nativeFromCronexpr(cronexprFromNative(native));
      expect(firesAt(back, 20), native).toEqual(firesAt(native, 20));
    }
  });
});
