/**
 * The work one evaluation of a schedule may do (a preview, a next fire, a plan window,
 * a shortest-gap sample): instants built and calendar days looked at. Expansion skips
 * what cannot fire a field at a time and stops once it has what it was asked for, so an
 * ordinary call spends little; the cap turns anything it missed into an answer, not a stall.
 */

/**
 * Far above any call the service makes (a three-day plan window of an every-second cron
 * is ~260k instants, a backfill 10k) and a few tens of milliseconds of work.
 */
export const EVALUATION_STEP_LIMIT = 1_000_000;

/** A schedule that would cost more than the cap to evaluate; names it (`cron "…" in Zone`). */
export class ScheduleTooCostlyError extends Error {
  constructor(
    readonly schedule: string,
    readonly limit: number,
    /** The field at fault: `cron`, or `every` for an interval. */
    readonly field: 'cron' | 'every' = 'cron',
  ) {
    super(
      `${schedule} takes more than ${limit.toLocaleString('en-US')} steps to evaluate; write it with fewer runs or a narrower year, month or day`,
    );
    this.name = 'ScheduleTooCostlyError';
  }
}

/** Work done by every evaluation in this process: a test reads what one request cost. */
export const evaluationTally = { instants: 0, days: 0 };

/** The budget of one call; spend() throws ScheduleTooCostlyError once past its limit. */
export class EvaluationBudget {
  instants = 0;
  days = 0;

  constructor(
    /** How the error names the schedule: `cron "* * * * * * 2030" in America/New_York` (built only then). */
    private readonly describe: () => string,
    readonly limit = EVALUATION_STEP_LIMIT,
    private readonly field: 'cron' | 'every' = 'cron',
  ) {}

  get spent(): number {
    return this.instants + this.days;
  }

  /** Counts `n` instants built (resolved or kept). */
  spendInstants(n: number): void {
    this.instants += n;
    evaluationTally.instants += n;
    if (this.spent > this.limit) throw new ScheduleTooCostlyError(this.describe(), this.limit, this.field);
  }

  /** Counts one calendar day looked at. */
  spendDay(): void {
    this.days++;
    evaluationTally.days++;
    if (this.spent > this.limit) throw new ScheduleTooCostlyError(this.describe(), this.limit, this.field);
  }
}
