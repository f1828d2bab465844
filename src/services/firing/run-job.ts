import type { RunBudget } from './admission/run-budget.js';
import type { RunReport } from './run-execution.js';

/**
 * The runs of one execute job as the executor carries them: the job's reports, settled
 * once every run has left it, with the first failure (in the job's order) if any run
 * failed. One promise a job rather than one a run: an instant's thousands of runs each
 * hold their job for seconds, and every object they hold is copied by young collections.
 */
export class JobRuns {
  readonly reports: Promise<RunReport[]>;
  private readonly given: Array<RunReport | undefined>;
  private failure: { index: number; err: unknown } | null = null;
  private remaining: number;
  private resolve!: (reports: RunReport[]) => void;
  private reject!: (err: unknown) => void;

  constructor(count: number) {
    this.given = new Array<RunReport | undefined>(count);
    this.remaining = count;
    this.reports = new Promise<RunReport[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (count === 0) this.resolve([]);
  }

  give(index: number, report: RunReport): void {
    this.given[index] = report;
    this.left();
  }

  fail(index: number, err: unknown): void {
    if (this.failure === null || index < this.failure.index) this.failure = { index, err };
    this.left();
  }

  private left(): void {
    if (--this.remaining > 0) return;
    if (this.failure) this.reject(this.failure.err);
    else this.resolve(this.given as RunReport[]);
  }
}

/**
 * A run's hold on its job: its report, given once (when the run is done, or earlier when
 * it goes on detached), and the permit of the process's run budget, given back as the
 * job is left.
 */
export class RunJob {
  permit = false;
  private left = false;

  constructor(
    private readonly runs: JobRuns,
    private readonly index: number,
    private readonly budget: RunBudget | undefined,
  ) {}

  leave(report: RunReport): void {
    if (this.left) return;
    this.left = true;
    // A run that no longer needs its job (detached, or done) no longer needs its permit.
    this.givePermit();
    this.runs.give(this.index, report);
  }

  /** Fails the run in its job; false if the run had left it already (it failed detached). */
  fail(err: unknown): boolean {
    this.givePermit();
    if (this.left) return false;
    this.left = true;
    this.runs.fail(this.index, err);
    return true;
  }

  private givePermit(): void {
    if (!this.permit) return;
    this.permit = false;
    this.budget?.give();
  }
}
