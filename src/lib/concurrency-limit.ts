import { FifoQueue } from './fifo-queue.js';

/**
 * Runs at most `max` of the calls given to it at once; the others wait their turn, first
 * come first served. For work that comes in bursts and would otherwise take every
 * connection of a pool that others need too.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting = new FifoQueue<() => void>();

  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // The turn passes straight to the next waiter: `running` stays as it is.
      if (next) next();
      else this.running--;
    }
  }
}
