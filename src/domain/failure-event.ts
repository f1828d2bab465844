import type { NotifyOutcome } from './timer.js';

/** What a failure notification says (SPEC run controls: notify). */
export interface FailureEvent {
  type: `run.${NotifyOutcome}`;
  timerId: number;
  app: string;
  taskId: string;
  /** ISO-8601. */
  runAt: string;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
}

/** A notification to send: where, for which app (it is signed with the app's secret), and what. */
export interface NotifyJobData {
  url: string;
  app: string;
  event: FailureEvent;
}
