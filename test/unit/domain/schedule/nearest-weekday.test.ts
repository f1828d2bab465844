import { describe, expect, it } from 'vitest';
import { expandRuns, findCronProblem, parseCron } from '../../../../src/domain/schedule/cron-schedule.js';

/** `W` in the day of month (Quartz's nearest weekday), which cron-parser lacks. */

const day = (iso: string) => Date.parse(`${iso}T09:00:00Z`);
const runsIn = (cron: string, from: string, to: string) =>
  expandRuns(parseCron(cron), 'UTC', Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`));

describe('W in the day of month', () => {
  it('moves a Sunday to the Monday after', () => {
    expect(runsIn('0 9 15W * *', '2026-11-01', '2026-12-01')).toEqual([day('2026-11-16')]);
  });

  it('moves a Saturday 1st to Monday the 3rd, never into the month before', () => {
    expect(runsIn('0 9 1W * *', '2026-07-25', '2026-08-10')).toEqual([day('2026-08-03')]);
  });

  it('moves a Sunday that ends the month to the Friday before, never into the next', () => {
    expect(runsIn('0 9 31W * *', '2026-05-01', '2026-06-05')).toEqual([day('2026-05-29')]);
  });

  it('LW: the last weekday of the month', () => {
    expect(runsIn('0 9 LW * *', '2027-01-01', '2027-02-01')).toEqual([day('2027-01-29')]);
  });

  it('a day the month lacks never fires, and W mixes with plain days', () => {
    expect(runsIn('0 9 31W * *', '2026-02-01', '2026-03-01')).toEqual([]);
    expect(runsIn('0 9 1,15W * *', '2026-11-01', '2026-12-01')).toEqual([
      day('2026-11-01'),
      day('2026-11-16'),
    ]);
  });

  it('is valid cron, and 32W is not', () => {
    expect(findCronProblem('0 9 15W * *')).toBeNull();
    expect(findCronProblem('0 9 32W * *')).not.toBeNull();
  });
});
