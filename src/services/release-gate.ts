import { WheelTimer } from '../domain/timing-wheel.js';

export type Release = 'due' | 'withdrawn';

interface Waiter {
  resolve(r: Release): void;
}

/**
 * Holds prepared runs until their due millisecond on a timing wheel (SPEC §5.4) and
 * lets them go, all runs of one instant in one synchronous burst. On shutdown the
 * runs still waiting are withdrawn (not sent) so another process can take them.
 */
export class ReleaseGate {
  private readonly wheel: WheelTimer<Waiter>;
  private closed = false;

  constructor(now: () => number = Date.now) {
    this.wheel = new WheelTimer<Waiter>({
      now,
      onDue: (waiters) => {
        for (const w of waiters) w.resolve('due');
      },
    });
  }

  /** Resolves 'due' at `dueMs` (at once if it has passed), or 'withdrawn' on shutdown. */
  at(dueMs: number): Promise<Release> {
    if (this.closed) return Promise.resolve('withdrawn');
    return new Promise<Release>((resolve) => {
      this.wheel.schedule(dueMs, { resolve });
    });
  }

  /** Stops releasing; every run still waiting is withdrawn. */
  close(): number {
    if (this.closed) return 0;
    this.closed = true;
    const waiting = this.wheel.stop();
    for (const w of waiting) w.resolve('withdrawn');
    return waiting.length;
  }

  get waiting(): number {
    return this.wheel.size;
  }
}
