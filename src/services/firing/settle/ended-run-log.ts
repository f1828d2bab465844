import type { Timer } from '../../../domain/timer.js';

/** What a failed or missed run's log line says, in one line a person can act on. */
export interface EndedRunFields {
  app: string;
  /** The timer's name. */
  timer: string;
  timerId: number;
  taskKey: string;
  /** The callback's host and port only: a URL's path and query may carry a token. */
  host: string;
  /** How it ended: `HTTP 503`, the call's error, or why it was missed. */
  reason: string | null;
}

/** Built only for a run that failed or was missed: the log line of the run, not the hot path's. */
export function endedRunFields(timer: Timer, taskKey: string, reason: string | null): EndedRunFields {
  let host: string;
  try {
    host = new URL(timer.callback.url).host;
  } catch {
    host = '?';
  }
  return { app: timer.app, timer: timer.name, timerId: timer.id, taskKey, host, reason };
}
