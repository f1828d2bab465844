import type { FiringLulls } from './firing-lulls.js';
import { WheelTimer } from './wheel-timer.js';

export type Release = 'due' | 'withdrawn';

interface Waiter {
  dueMs: number;
  release(r: Release): void;
}

/**
 * The wheel wakes this much before an instant; the last stretch is a busy wait, so a
 * free event loop lets the runs go at their exact millisecond rather than a timer
 * phase later. At most this long of spinning per instant.
 */
const LEAD_MS = 2;

/**
 * Holds prepared runs until their due millisecond on a timing wheel and
 * lets them go, all runs of one instant in one synchronous burst. On shutdown the
 * runs still waiting are withdrawn (not sent) so another process can take them.
 * A run waits as its callback, not as a promise some async frames await: an instant's
 * thousands wait at once, and what each holds is copied by every young collection.
 */
export class ReleaseGate {
  private readonly wheel: WheelTimer<Waiter>;
  private isClosed = false;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly lulls?: FiringLulls,
  ) {
    this.wheel = new WheelTimer<Waiter>({ now, onDue: (waiters) => this.release(waiters) });
    lulls?.watch(() => this.wheel.nextDue());
  }

  /**
   * Calls `release` with 'due' at `dueMs` (soon if it has passed), or 'withdrawn' on
   * shutdown (at once if the gate is closed). It is called synchronously within the
   * instant's burst and must not throw: the rest of the burst would be lost.
   */
  hold(dueMs: number, release: (r: Release) => void): void {
    if (this.isClosed) release('withdrawn');
    else this.wheel.schedule(dueMs - LEAD_MS, { dueMs, release });
  }

  /** Stops releasing; every run still waiting is withdrawn. */
  close(): number {
    if (this.isClosed) return 0;
    this.isClosed = true;
    const waiting = this.wheel.stop();
    for (const w of waiting) w.release('withdrawn');
    return waiting.length;
  }

  /** True once closed (shutdown): nothing is released any more. */
  get closed(): boolean {
    return this.isClosed;
  }

  get waiting(): number {
    return this.wheel.size;
  }

  private release(waiters: Waiter[]): void {
    // Waiters come in due order; wait out the lead for each instant, then let it go.
    const giveUpAt = performance.now() + LEAD_MS + 1;
    for (const w of waiters) {
      while (this.now() < w.dueMs && performance.now() < giveUpAt) {
        // busy wait: at most LEAD_MS (bounded by real time, whatever clock `now` reads)
      }
      // The clock stepped back under us (a new offset from Redis): wait again, never go early.
      if (this.now() < w.dueMs) this.wheel.schedule(w.dueMs, w);
      else w.release('due');
    }
    this.lulls?.released(waiters.length);
  }
}
