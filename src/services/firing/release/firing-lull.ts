import { setTimeout as sleep } from 'node:timers/promises';

/** What the executor of this process tells of its calls. */
export interface Firing {
  /** Calls sent and not answered yet. */
  callsInFlight(): number;
  /** When the next runs waiting for their instant are let go (null: none is waiting). */
  nextRelease(): number | null;
  /** When runs were last let go (null: never). */
  lastRelease(): number | null;
}

/** No lull while runs are let go within this. */
const CLEAR_MS = 250;
/** Calls still in flight this long after their release wait on their receivers, not on this process. */
const BURST_MS = 500;
const LOOK_EVERY_MS = 5;
/** The longest a wait for a lull lasts. */
const MAX_WAIT_MS = 1000;
/** After a wait that found no lull (a steady stream of calls), this long without waiting. */
const NO_LULL_FOR_MS = 10_000;

/**
 * The lulls between this process's bursts of calls. Cron and interval runs fall on whole
 * seconds, so an executor's calls come in bursts, and its stores and cores are idle
 * between them. The migrator beside it writes its plan in those lulls: its writes, and
 * the CPU they cost Node, MySQL and Redis, then never delay a burst. Without an executor
 * in the process there is nothing to wait for.
 */
export class FiringLull {
  private firing: Firing | null = null;
  private missedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** The executor to watch (null: it stopped). */
  follow(firing: Firing | null): void {
    this.firing = firing;
  }

  /** Whether no run is let go soon and the calls of the last release are answered (or waiting on slow receivers). */
  get isNow(): boolean {
    const f = this.firing;
    if (!f) return true;
    const now = this.now();
    const next = f.nextRelease();
    if (next !== null && next - now < CLEAR_MS) return false;
    const last = f.lastRelease();
    return f.callsInFlight() === 0 || last === null || now - last >= BURST_MS;
  }

  /**
   * Resolves at a lull, or after MAX_WAIT_MS without one; after such a wait, at once for
   * NO_LULL_FOR_MS, so a process with calls always going out plans at its usual pace.
   */
  async reached(): Promise<void> {
    if (this.now() - this.missedAt < NO_LULL_FOR_MS) return;
    const giveUpAt = this.now() + MAX_WAIT_MS;
    while (!this.isNow) {
      if (this.now() >= giveUpAt) {
        this.missedAt = this.now();
        return;
      }
      await sleep(LOOK_EVERY_MS);
    }
  }
}
