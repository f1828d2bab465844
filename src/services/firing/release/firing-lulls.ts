/**
 * After an instant's release its calls go out, their answers come back and the outcomes
 * are written: about this long a run on a small box, SETTLE_MS at most.
 */
const SETTLE_PER_RUN_MS = 0.2;
const SETTLE_MS = 200;
/** A release at least this large says the runs fire in bursts: the next one is kept clear too. */
const BURST_RUNS = 100;
/** A wait for a lull ends after this long, lull or not. */
export const MAX_WAIT_MS = 1000;

/**
 * When the executor of this process is between instants. The planner writes runs far
 * ahead only then, so its SQL and the rows MariaDB and Redis take in do not share the
 * cores with an instant's burst of calls. A process with no executor, or whose runs are
 * spread over the second, is always between instants.
 */
export class FiringLulls {
  #nextRelease: () => number | null = () => null;
  /** Monotonic times: the executor's clock may step when its offset from Redis is measured again. */
  #settledAt = Number.NEGATIVE_INFINITY;
  #lastBurstAt = Number.NEGATIVE_INFINITY;
  /** Between the last two bursts, once the first had settled: what a batch can fit in. */
  #room = Number.POSITIVE_INFINITY;
  #lastRelease = 0;

  /**
   * @param now the clock the gate's due times are in
   * @param monotonic the clock this waits by
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  /** The executor's release gate: when it lets its next held runs go, no later (null: none held). */
  watch(nextRelease: () => number | null): void {
    this.#nextRelease = nextRelease;
  }

  /** The gate has just let `runs` runs of one instant go. */
  released(runs: number): void {
    const at = this.monotonic();
    const settle = Math.min(SETTLE_MS, runs * SETTLE_PER_RUN_MS);
    if (runs >= BURST_RUNS) {
      this.#room = at - this.#lastBurstAt - settle;
      this.#lastBurstAt = at;
    }
    this.#lastRelease = runs;
    if (at + settle > this.#settledAt) this.#settledAt = at + settle;
  }

  /**
   * Resolves once the last instant's runs have settled and, where they come in bursts
   * with room between them for `needMs`, the next release is more than `needMs` away;
   * after MAX_WAIT_MS at most.
   */
  async wait(needMs: number): Promise<void> {
    const giveUpAt = this.monotonic() + MAX_WAIT_MS;
    for (;;) {
      const at = this.monotonic();
      let until = this.#settledAt;
      if (until <= at && this.#lastRelease >= BURST_RUNS && needMs <= this.#room) {
        const next = this.#nextRelease();
        const inMs = next === null ? Number.POSITIVE_INFINITY : next - this.now();
        if (inMs >= 0 && inMs < needMs) until = at + inMs + 1;
      }
      if (until <= at || at >= giveUpAt) return;
      await new Promise((r) => setTimeout(r, Math.min(until, giveUpAt) - at));
    }
  }
}
