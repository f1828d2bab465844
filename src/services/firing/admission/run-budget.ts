import { FifoQueue } from '../../../lib/fifo-queue.js';

/**
 * How many runs one executor process carries at once (EXECUTOR_MAX_RUNS): from the claim,
 * through the wait for the due millisecond and the call, to the outcome. When more runs
 * are due than the process can call, the rest wait for a permit in arrival (due) order,
 * before they are claimed, holding no lease: the backlog stays in the queue, not in this
 * process's memory and event loop, so the process keeps its pace and leases, job locks
 * and call deadlines hold (an executor that took every due run spiralled into
 * lapsed locks and exhausted memory). A run that leaves its job (waiting for its
 * app's slot or its overlap turn) returns its permit too.
 */
export class RunBudget {
  private held = 0;
  private readonly waiters = new FifoQueue<(granted: boolean) => void>();
  private closed = false;

  constructor(readonly size: number) {}

  /** Resolves true once a permit is held, false if the budget was closed (shutdown). */
  take(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.held < this.size && this.waiting === 0) {
      this.held++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Gives a permit back; the longest waiter gets it. */
  give(): void {
    const next = this.waiters.shift();
    if (next) {
      next(true);
      return;
    }
    this.held = Math.max(0, this.held - 1);
  }

  /** Runs waiting for a permit. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Stops granting permits; every waiter is told to give up (its run goes back unclaimed). */
  close(): number {
    this.closed = true;
    const n = this.waiting;
    for (const wake of this.waiters.drain()) wake(false);
    return n;
  }
}
