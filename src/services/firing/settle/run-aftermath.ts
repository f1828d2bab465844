import type { Logger } from '../../../observability/logger.js';
import type { FailureNotifier } from '../../notify/failure-notifier.js';
import type { SettledRun } from '../run-execution.js';

export interface RunAftermathDeps {
  /**
   * Marks the timer completed (if still active and its final run is at or before `runAt`)
   * and announces the change; false if it was not.
   */
  completeTimer(timerId: number, runAt: number): Promise<boolean>;
  /** Counts a scheduled run that ended failed (or resets the count on success); returns the streak. */
  countFailure(timerId: number, failed: boolean): Promise<number>;
  /** Disables the timer for its autoPause; its note if this call paused it, null otherwise. */
  autoPause(timerId: number): Promise<string | null>;
  notifier: Pick<FailureNotifier, 'report' | 'reportPaused'>;
  logger: Logger;
}

/**
 * What a settled run means beyond itself: the last run a timer's schedule will make
 * (a one-shot, maxRuns reached, endAt) completes the timer; a run that ended failed or
 * missed is reported to whoever asked (notify).
 */
export class RunAftermath {
  constructor(private readonly d: RunAftermathDeps) {}

  /**
   * Each part goes on whatever the others did: the notice first, since it needs no MySQL
   * (the app's default notification has a copy in Redis), then what MySQL must judge.
   * Throws the first part's failure once all have been tried.
   */
  async settled(e: SettledRun): Promise<void> {
    const { timer, run } = e;
    const outcome = { runAt: run.runAt, attempts: e.attempts, httpStatus: e.httpStatus, error: e.error };
    const failures: unknown[] = [];
    const attempt = (part: () => Promise<void>) => part().catch((err: unknown) => void failures.push(err));
    if (e.status === 'failed' || e.status === 'missed') {
      const status = e.status;
      await attempt(() => this.d.notifier.report(timer, status, outcome));
    }
    if (run.trigger === undefined && timer.finalRunAt !== null && run.runAt >= timer.finalRunAt) {
      await attempt(async () => {
        // Judged again by MySQL: this copy of the timer may predate a PATCH that moved its end on.
        if (await this.d.completeTimer(timer.id, run.runAt))
          this.d.logger.info({ timerId: timer.id }, 'timer completed');
      });
    }
    // autoPause: N scheduled runs in a row that end failed disable the timer.
    const pausing = timer.autoPause;
    if (pausing && run.trigger === undefined && (e.status === 'failed' || e.status === 'succeeded')) {
      await attempt(async () => {
        const streak = await this.d.countFailure(timer.id, e.status === 'failed');
        if (streak < pausing.afterConsecutiveFailures) return;
        const note = await this.d.autoPause(timer.id);
        if (note === null) return;
        this.d.logger.info({ timerId: timer.id, streak }, 'timer auto-paused');
        await this.d.notifier.reportPaused(timer, note, outcome);
      });
    }
    if (failures.length > 0) throw failures[0];
  }
}
