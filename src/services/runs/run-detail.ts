import { prepareCall } from '../../callback/callback-request.js';
import { isCredentialName, MASK } from '../../domain/audit.js';
import { taskKey } from '../../domain/plan/task-key.js';
import type { Task, Timer } from '../../domain/timer.js';

/** The request of a run's attempt, as the request builder makes it, with credentials masked. */
export interface SentRequest {
  method: Timer['callback']['method'];
  url: string;
  headers: Record<string, string>;
  body: string | null;
  bodyBytes: number;
  /** Whether the app signs its calls: the webhook-* headers are then added per attempt. */
  signed: boolean;
}

/** The latest attempt's answer, as the run row keeps it. */
export interface AttemptAnswer {
  attempt: number;
  /** When it was sent. */
  sentAt: number | null;
  httpStatus: number | null;
  /** The start of the response body (LIMITS.outputMaxChars at most). */
  output: string | null;
  outputBytes: number;
  durationMs: number | null;
  error: string | null;
}

/** A run opened in the inspector: the run, the request its attempts send, the answer kept. */
export interface RunDetail {
  task: Task;
  request: SentRequest;
  /** The attempt whose answer the row keeps (the latest); none before the first call. */
  latest: AttemptAnswer | null;
}

/**
 * A run's detail rebuilt rather than stored: the request builder is deterministic over the
 * timer's callback and the run (key, instant, attempt, trigger), so the firing path keeps
 * writing one row per run and nothing per attempt. Credential headers come back masked.
 */
export function runDetail(timer: Timer, task: Task, signed: boolean): RunDetail {
  const attempt = Math.max(1, task.attempts);
  const call = prepareCall(timer, taskKey(task.timerId, task.runAt), task.runAt, attempt, null, task.trigger);
  const headers = Object.fromEntries(
    Object.entries(call.headers).map(([name, value]) => [name, isCredentialName(name) ? MASK : value]),
  );
  return {
    task,
    request: {
      method: call.method,
      url: `${call.origin}${call.path}`,
      headers,
      body: call.body,
      bodyBytes: call.body === null ? 0 : Buffer.byteLength(call.body, 'utf8'),
      signed,
    },
    latest:
      task.attempts === 0
        ? null
        : {
            attempt: task.attempts,
            sentAt: task.firedAt,
            httpStatus: task.httpStatus,
            output: task.output,
            outputBytes: task.output === null ? 0 : Buffer.byteLength(task.output, 'utf8'),
            durationMs: task.durationMs,
            error: task.error,
          },
  };
}
