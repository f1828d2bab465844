import { FifoQueue } from '../domain/fifo-queue.js';

/**
 * How many runs one executor process carries at once (EXECUTOR_MAX_RUNS): from the claim,
 * through the wait for the due millisecond and the call, to the outcome. When more runs
 * are due than the process can call, the rest wait for a permit in arrival (due) order,
 * before they are claimed, holding no lease: the backlog stays in the queue, not in this
 * process's memory and event loop, so the process keeps its pace and leases, job locks
 * and call deadlines hold (issue 12: an executor that took every due run spiralled into
 * lapsed locks and exhausted memory). A run that lets go of its job (waiting for its
 * app's slot or its overlap turn) lets go of its permit too.
 */
export class RunBudget {
  private held = 0;
  private readonly waiters = new FifoQueue<(granted: boolean) => void>();
  private closed = false;
  private readonly listeners: Array<(saturated: boolean) => void> = [];

  constructor(readonly size: number) {}

  /**
   * Tells `listener` when runs start waiting for a permit (true) and when none waits any
   * more (false): the executor fetches no more jobs meanwhile (IntakeLimit), so that a
   * backlog stays in the queue, freshest first, rather than in this process.
   */
  onSaturation(listener: (saturated: boolean) => void): this {
    this.listeners.push(listener);
    return this;
  }

  /** Resolves true once a permit is held, false if the budget was closed (shutdown). */
  take(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.held < this.size && this.waiting === 0) {
      this.held++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      if (this.waiters.length === 1) this.tell(true);
    });
  }

  /** Gives a permit back; the longest waiter gets it. */
  give(): void {
    const next = this.waiters.shift();
    if (next) {
      if (this.waiters.length === 0) this.tell(false);
      next(true);
      return;
    }
    this.held = Math.max(0, this.held - 1);
  }

  /** Permits not held and not waited for (negative while runs wait). */
  get free(): number {
    return this.size - this.held - this.waiting;
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
    if (n > 0) this.tell(false);
    return n;
  }

  private tell(saturated: boolean): void {
    for (const listener of this.listeners) listener(saturated);
  }
}
