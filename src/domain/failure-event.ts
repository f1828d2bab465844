import type { NotifyOutcome } from './timer.js';

/** What a failure notification (a timer's `notify`) says. */
export interface FailureEvent {
  /** `timer.paused`: the run's failure made the timer's autoPause disable it. */
  type: `run.${NotifyOutcome}` | 'timer.paused';
  timerId: number;
  app: string;
  taskId: string;
  /** ISO-8601. */
  runAt: string;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  /** With `timer.paused`: the pause's note. */
  note?: string;
}

/** A notification to send: where, for which app (it is signed with the app's secret), and what. */
export interface NotifyJobData {
  url: string;
  app: string;
  event: FailureEvent;
}
