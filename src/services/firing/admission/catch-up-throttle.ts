/**
 * How far behind this process's event loop may run (the longest stall in the last look)
 * while the catch-up lane is worked. A run due now waits that long for its turn: past it,
 * the process has no spare time, and the catch-up lane waits for it.
 */
export const CATCH_UP_MAX_LAG_MS = 50;
/** How often the loop is looked at (the catch-up lane stops within about this long). */
export const CATCH_UP_LOOK_EVERY_MS = 200;
/**
 * While the loop is behind, the catch-up lane is still worked one look in this many: a
 * floor under its share, so that under sustained overload its runs are still reached (and
 * called, or recorded missed by their misfire policy) rather than left queued for good.
 */
export const CATCH_UP_FLOOR_EVERY = 2;

export interface CatchUpThrottleDeps {
  /** The event loop's longest stall since the last call, in ms. */
  lagSinceLastLook(): number;
  /** Stop and start fetching from the catch-up lane (jobs already fetched go on). */
  pause(): void;
  resume(): void;
}

/**
 * Works the catch-up lane (`execute-late`) only with the time this executor has spare
 * (so an overloaded executor recovers). The runs due now, from `execute`, come first: while
 * the event loop falls behind (a backlog, a migration, GC) the catch-up lane is paused,
 * but for one look in CATCH_UP_FLOOR_EVERY, and it is worked in full again as soon as the
 * loop keeps up. Past capacity, the backlog waits in Redis and drains at that floor; once
 * the load drops it drains in the time the runs due now leave. Runs past their misfire
 * threshold by the time they are reached are recorded missed by their timers' policy.
 */
export class CatchUpThrottle {
  private paused = false;
  /** Looks in a row that found the loop behind. */
  private behindLooks = 0;

  constructor(
    private readonly d: CatchUpThrottleDeps,
    private readonly maxLagMs = CATCH_UP_MAX_LAG_MS,
  ) {}

  /** Looks at the loop once: pauses or resumes the lane if its state must change. */
  look(): void {
    const behind = this.d.lagSinceLastLook() > this.maxLagMs;
    this.behindLooks = behind ? this.behindLooks + 1 : 0;
    const pause = behind && this.behindLooks % CATCH_UP_FLOOR_EVERY !== 0;
    if (pause === this.paused) return;
    this.paused = pause;
    if (pause) this.d.pause();
    else this.d.resume();
  }

  get isPaused(): boolean {
    return this.paused;
  }
}
