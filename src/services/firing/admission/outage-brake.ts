import type { Logger } from '../../../observability/logger.js';

/**
 * How long an executor fires while MySQL takes none of its outcomes: under the 6 minutes
 * a finished run's claim record lives (RunClaims' keepMs), the record that tells a copy of
 * the run queued again that it ran. Past it the executor takes no more runs; they wait in
 * the queue, to go late or be recorded missed by their misfire policy once MySQL is back.
 */
export const FIRE_WITHOUT_MYSQL_MS = 5 * 60_000;

export interface OutageBrakeDeps {
  /** How long outcome writes have been failing (0 while they succeed). */
  failingFor(): number;
  /** Stop and start taking runs. */
  pause(): void;
  resume(): void;
  logger: Logger;
}

/** Stops an executor from firing past FIRE_WITHOUT_MYSQL_MS of MySQL outage, and starts it again. */
export class OutageBrake {
  private braked = false;

  constructor(
    private readonly d: OutageBrakeDeps,
    private readonly limitMs = FIRE_WITHOUT_MYSQL_MS,
  ) {}

  look(): void {
    const failing = this.d.failingFor();
    if (!this.braked && failing > this.limitMs) {
      this.braked = true;
      this.d.pause();
      this.d.logger.warn(
        { failingMs: failing },
        'MySQL has taken no outcome for too long: this executor takes no runs until it does',
      );
    } else if (this.braked && failing === 0) {
      this.braked = false;
      this.d.resume();
      this.d.logger.info('MySQL takes outcomes again: this executor takes runs again');
    }
  }

  get engaged(): boolean {
    return this.braked;
  }
}
