import { describe, expect, it } from 'vitest';
import {
  DAY,
  type DayPartition,
  partitionName,
  planPartitions,
} from '../../../../src/domain/plan/day-partitions.js';

/** Which day partitions of the run history to add ahead and to drop. */

const at = (iso: string) => Date.parse(iso);
const day = (iso: string): DayPartition => ({ name: partitionName(at(iso)), lessThan: at(iso) + DAY });
const FUTURE: DayPartition = { name: 'p_future', lessThan: null };

describe('day partitions', () => {
  it('names a partition by its UTC day', () => {
    expect(partitionName(at('2026-11-24T00:00:00Z'))).toBe('p20261124');
  });

  it('adds the days from the last one up to aheadDays after today', () => {
    const existing = [day('2026-11-23T00:00:00Z'), day('2026-11-24T00:00:00Z'), FUTURE];
    const plan = planPartitions(existing, at('2026-11-24T15:00:00Z'), 2, 7);
    expect(plan.add).toEqual([at('2026-11-25T00:00:00Z'), at('2026-11-26T00:00:00Z')]);
    expect(plan.drop).toEqual([]);
  });

  it('adds nothing when the days ahead exist, and fills a gap day by day back to the retention only', () => {
    const ahead = [
      day('2026-11-24T00:00:00Z'),
      day('2026-11-25T00:00:00Z'),
      day('2026-11-26T00:00:00Z'),
      FUTURE,
    ];
    expect(planPartitions(ahead, at('2026-11-24T15:00:00Z'), 2, 7).add).toEqual([]);
    const stale = [day('2026-11-01T00:00:00Z'), FUTURE];
    const days = planPartitions(stale, at('2026-11-24T15:00:00Z'), 1, 7).add;
    // 11-17's partition also takes the runs from 11-02 on; 11-25 is the day ahead.
    expect(days[0]).toBe(at('2026-11-17T00:00:00Z'));
    expect(days.at(-1)).toBe(at('2026-11-25T00:00:00Z'));
    expect(days).toHaveLength(9);
  });

  it('drops a day only once every run in it is older than the retention, oldest first', () => {
    const existing = [
      FUTURE,
      day('2026-11-17T00:00:00Z'),
      day('2026-11-16T00:00:00Z'),
      day('2026-11-18T00:00:00Z'),
    ];
    // 7 days before 2026-11-24T12:00 is 11-17T12:00: the 16th (ends 11-17T00:00) is past it, the 17th not.
    expect(planPartitions(existing, at('2026-11-24T12:00:00Z'), 0, 7).drop.map((p) => p.name)).toEqual([
      'p20261116',
    ]);
    expect(planPartitions(existing, at('2026-11-25T00:00:00Z'), 0, 7).drop.map((p) => p.name)).toEqual([
      'p20261116',
      'p20261117',
    ]);
  });
});
