/**
 * Run history by day: `tasks` is RANGE-partitioned on `run_at`, one partition
 * per UTC day (`p20261124` holds the runs before 2026-11-25T00:00Z not in an earlier
 * partition) and `p_future` for everything after the last day. Which partitions to add
 * ahead and which to drop is decided here; the SQL lives in storage.
 */

export const DAY = 24 * 3600_000;
/** The catch-all partition past the last day (VALUES LESS THAN MAXVALUE). */
export const FUTURE_PARTITION = 'p_future';

/** A partition as the database lists it: its name and exclusive upper bound (null: MAXVALUE). */
export interface DayPartition {
  name: string;
  lessThan: number | null;
}

export interface PartitionPlan {
  /** Days (UTC midnights) to split off `p_future`, each as a partition ending a day later, in order. */
  add: number[];
  /** Partitions whose every run is older than the retention, oldest first. */
  drop: DayPartition[];
}

export function dayStart(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

/** `p20261124`: the partition of the UTC day starting at `dayMs`. */
export function partitionName(dayMs: number): string {
  return `p${new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * Partitions to add so that every day up to `aheadDays` after today has its own, and
 * those to drop because their runs are all older than `retentionDays`. A gap (the
 * service stopped for days, or a first start long after the migration) is filled day by
 * day back to the retention only: the first new partition takes whatever is older, and
 * goes when its own day does.
 */
export function planPartitions(
  existing: readonly DayPartition[],
  nowMs: number,
  aheadDays: number,
  retentionDays: number,
): PartitionPlan {
  const bounded = existing.filter((p) => p.lessThan !== null).sort((a, b) => a.lessThan! - b.lessThan!);
  const today = dayStart(nowMs);
  const last = bounded.at(-1)?.lessThan ?? today;
  const add: number[] = [];
  const from = Math.max(last, today - retentionDays * DAY);
  for (let day = from; day <= today + aheadDays * DAY; day += DAY) add.push(day);
  const cutoff = nowMs - retentionDays * DAY;
  return { add, drop: bounded.filter((p) => p.lessThan! <= cutoff) };
}

/**
 * The earliest instant whose run rows are kept at least another day: the history's oldest
 * day is dropped within one, so a run made or called again (a backfill, a retry) must not
 * lie in it, or its row goes while the run is still under way.
 */
export function keptADayFrom(nowMs: number, retentionDays: number): number {
  return dayStart(nowMs - retentionDays * DAY) + DAY;
}
