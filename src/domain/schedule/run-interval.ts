import type { EvaluationBudget } from '../evaluation-budget.js';
import { type CronSchedule, cronBudget, nextRuns } from './cron-schedule.js';

/** How many upcoming runs the shortest-gap check looks at. */
export const GAP_SAMPLE_RUNS = 120;

/**
 * The shortest time between two consecutive runs among the next `count` after `fromMs`
 * (null if fewer than two). A cron is a product of field sets, so its tightest spacing
 * shows up within its first matching minutes; a sample of the next runs finds it.
 */
export function shortestGapMs(
  schedule: CronSchedule,
  timeZone: string,
  fromMs: number,
  count = GAP_SAMPLE_RUNS,
  budget: EvaluationBudget = cronBudget(schedule, timeZone),
): number | null {
  const runs = nextRuns(schedule, timeZone, fromMs, count, undefined, budget);
  let shortest: number | null = null;
  for (let i = 1; i < runs.length; i++) {
    const gap = runs[i]! - runs[i - 1]!;
    if (shortest === null || gap < shortest) shortest = gap;
  }
  return shortest;
}
