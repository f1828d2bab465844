import type { RunBudget } from './run-budget.js';

/** What the limit sets: a BullMQ worker's concurrency (jobs it holds at once). */
export interface ConcurrencyDial {
  concurrency: number;
}

/** How quickly the estimate of runs per job follows the jobs coming in (moving average weight). */
const RUNS_PER_JOB_WEIGHT = 0.1;
/** Runs per job assumed before any job came: large, so that a backlog found at start comes in a little at a time. */
const FIRST_RUNS_PER_JOB = 100;

/**
 * How many execute jobs each BullMQ worker of an executor may hold, set from the runs the
 * process can still take on (its RunBudget). A BullMQ worker fetches jobs in one burst up
 * to its concurrency before it starts any of them, so a fixed concurrency of hundreds of
 * jobs let one burst bring a backlog of 100,000+ runs into the process (issue 12: 2 GB of
 * heap, a second of event-loop lag, every run late, job locks lapsing). Here a worker may
 * hold the jobs it holds plus as many as the free permits fill at the recent runs per
 * job: past capacity, the backlog stays in the queue, where the freshest runs go first.
 */
export class IntakeLimit {
  private runsPerJob = FIRST_RUNS_PER_JOB;
  private readonly held: number[];
  private dials: readonly ConcurrencyDial[] = [];

  constructor(
    private readonly budget: Pick<RunBudget, 'free'>,
    private readonly maxPerWorker: number,
    workers: number,
  ) {
    this.held = new Array<number>(workers).fill(0);
  }

  /** The workers whose concurrency this sets, by index. */
  attach(dials: readonly ConcurrencyDial[]): this {
    this.dials = dials;
    this.adjust();
    return this;
  }

  /** Runs `work`, a job of `runs` runs that worker `worker` took, counted as held meanwhile. */
  async carry<T>(worker: number, runs: number, work: () => Promise<T>): Promise<T> {
    this.held[worker] = (this.held[worker] ?? 0) + 1;
    this.runsPerJob += (Math.max(1, runs) - this.runsPerJob) * RUNS_PER_JOB_WEIGHT;
    this.adjust();
    try {
      return await work();
    } finally {
      this.held[worker] = (this.held[worker] ?? 1) - 1;
      this.adjust();
    }
  }

  /** The concurrency worker `worker` should have now: what it holds, and room for what the budget can take. */
  concurrencyOf(worker: number): number {
    const room = Math.floor(Math.max(0, this.budget.free) / (this.runsPerJob * this.held.length));
    return Math.max(1, Math.min(this.maxPerWorker, (this.held[worker] ?? 0) + room));
  }

  /** Sets every worker's concurrency from the budget as it is now. */
  adjust(): void {
    this.dials.forEach((dial, i) => {
      dial.concurrency = this.concurrencyOf(i);
    });
  }
}
