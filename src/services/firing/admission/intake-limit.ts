import { RUN_BATCH_MAX } from '../../../storage/redis/queues.js';

/** What the limit sets: a BullMQ worker's concurrency (jobs it holds at once). */
export interface ConcurrencyDial {
  concurrency: number;
}

/** The size of the largest recent job decays by this much a job, so that it follows jobs getting smaller. */
const LARGEST_JOB_DECAY = 0.95;

/**
 * How many execute jobs each BullMQ worker of an executor may hold, so that the process
 * holds no more runs than it can carry (EXECUTOR_MAX_RUNS). A BullMQ worker fetches jobs
 * in one burst up to its concurrency before it starts any of them, so a fixed concurrency
 * of thousands of jobs let one burst bring a backlog of 100,000+ runs into the process
 * (without it: 2 GB of heap, a second of event-loop lag, every run late, job locks lapsing).
 * Here each job is counted as it is fetched (BullMQ's `active` event comes before the
 * worker's next fetch), and a worker may hold the jobs it holds plus as many as the runs
 * still free fill at the size of the largest recent job: past capacity the backlog stays
 * in the queue, not in this process. A worker holding nothing may fetch one.
 */
export class IntakeLimit {
  /** Runs of the largest recent job; at first the largest a job can be, so a backlog found at start comes in a little at a time. */
  private largestJob = RUN_BATCH_MAX;
  private readonly jobs: number[];
  private runs = 0;
  private dials: readonly ConcurrencyDial[] = [];

  constructor(
    private readonly maxRuns: number,
    private readonly maxPerWorker: number,
    workers: number,
  ) {
    this.jobs = new Array<number>(workers).fill(0);
  }

  /** The workers whose concurrency this sets, by index. */
  attach(dials: readonly ConcurrencyDial[]): this {
    this.dials = dials;
    this.adjust();
    return this;
  }

  /** Worker `worker` fetched a job of `runs` runs; it holds them until `done`. */
  fetched(worker: number, runs: number): void {
    this.jobs[worker] = (this.jobs[worker] ?? 0) + 1;
    this.runs += runs;
    this.largestJob = Math.max(runs, this.largestJob * LARGEST_JOB_DECAY, 1);
    this.adjust();
  }

  /** Worker `worker` is done with a job of `runs` runs it fetched. */
  done(worker: number, runs: number): void {
    this.jobs[worker] = Math.max(0, (this.jobs[worker] ?? 1) - 1);
    this.runs = Math.max(0, this.runs - runs);
    this.adjust();
  }

  /** Runs in the jobs the workers hold. */
  get heldRuns(): number {
    return this.runs;
  }

  /** The concurrency worker `worker` should have now: the jobs it holds, and room for what is left. */
  concurrencyOf(worker: number): number {
    const free = Math.max(0, this.maxRuns - this.runs);
    const room = Math.floor(free / (this.largestJob * this.jobs.length));
    return Math.max(1, Math.min(this.maxPerWorker, (this.jobs[worker] ?? 0) + room));
  }

  private adjust(): void {
    this.dials.forEach((dial, i) => {
      dial.concurrency = this.concurrencyOf(i);
    });
  }
}
