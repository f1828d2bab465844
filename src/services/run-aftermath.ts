import type { Logger } from '../observability/logger.js';
import type { FailureNotifier } from './failure-notifier.js';
import type { SettledRun } from './run-executor.js';

export interface RunAftermathDeps {
  /** Marks the timer completed (if still active) and announces the change; false if it was not active. */
  completeTimer(timerId: number): Promise<boolean>;
  notifier: Pick<FailureNotifier, 'report'>;
  logger: Logger;
}

/**
 * What a settled run means beyond itself: the last run a timer's schedule will make
 * (a one-shot, maxRuns reached, endAt) completes the timer; a run that ended failed or
 * missed is reported to whoever asked (notify).
 */
export class RunAftermath {
  constructor(private readonly d: RunAftermathDeps) {}

  async settled(e: SettledRun): Promise<void> {
    const { timer, run } = e;
    if (run.trigger === undefined && timer.finalRunAt !== null && run.runAt >= timer.finalRunAt) {
      if (await this.d.completeTimer(timer.id)) this.d.logger.info({ timerId: timer.id }, 'timer completed');
    }
    if (e.status === 'failed' || e.status === 'missed') {
      await this.d.notifier.report(timer, e.status, {
        runAt: run.runAt,
        attempts: e.attempts,
        httpStatus: e.httpStatus,
        error: e.error,
      });
    }
  }
}
