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
  #settledAt = Number.NEGATIVE_INFINITY;
  #lastRelease = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The executor's release gate: when it lets its next held runs go (null: none held). */
  watch(nextRelease: () => number | null): void {
    this.#nextRelease = nextRelease;
  }

  /** The gate has just let `runs` runs of one instant go. */
  released(runs: number): void {
    this.#lastRelease = runs;
    const settled = this.now() + Math.min(SETTLE_MS, runs * SETTLE_PER_RUN_MS);
    if (settled > this.#settledAt) this.#settledAt = settled;
  }

  /**
   * Resolves once the last instant's runs have settled and, where they came as a burst,
   * the next release is more than `needMs` away; after MAX_WAIT_MS at most.
   */
  async wait(needMs: number): Promise<void> {
    const giveUpAt = this.now() + MAX_WAIT_MS;
    for (;;) {
      const now = this.now();
      let until = this.#settledAt;
      if (until <= now && this.#lastRelease >= BURST_RUNS) {
        const next = this.#nextRelease();
        if (next !== null && next + 1 > now && next - now < needMs) until = next + 1;
      }
      if (until <= now || now >= giveUpAt) return;
      await new Promise((r) => setTimeout(r, Math.min(until, giveUpAt) - now));
    }
  }
}
