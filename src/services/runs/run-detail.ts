import { prepareCall } from '../../callback/callback-request.js';
import { type AttemptAnswer, keptAnswers } from '../../domain/attempt-answers.js';
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

/** One attempt's answer as the inspector shows it, with the size of the body's start kept. */
export interface AttemptView extends AttemptAnswer {
  /** The size of `output` in UTF-8 bytes. */
  outputBytes: number;
}

/** A run opened in the inspector: the run, the request its attempts send, the answers kept. */
export interface RunDetail {
  task: Task;
  request: SentRequest;
  /** Each attempt's answer kept, oldest first (ANSWER_LIMITS: the last four at most). */
  attempts: AttemptView[];
  /** Attempts made whose answers are not kept (older than those above), besides one in flight. */
  attemptsNotKept: number;
  /** The latest answer kept (the last of `attempts`); none before the first answer. */
  latest: AttemptView | null;
}

/**
 * A run's detail: the request rebuilt rather than stored (the request builder is
 * deterministic over the timer's callback and the run: key, instant, attempt, trigger),
 * the answers as the run's row keeps them (its columns, and its answer log: headers, body
 * sizes, earlier attempts), so the firing path still writes one row per run and nothing
 * per attempt. Credential headers come back masked.
 */
export function runDetail(timer: Timer, task: Task, signed: boolean): RunDetail {
  const attempt = Math.max(1, task.attempts);
  const call = prepareCall(timer, taskKey(task.timerId, task.runAt), task.runAt, attempt, null, task.trigger);
  const headers = Object.fromEntries(
    Object.entries(call.headers).map(([name, value]) => [name, isCredentialName(name) ? MASK : value]),
  );
  const attempts = keptAnswers(task).map((a) => ({
    ...a,
    outputBytes: a.output === null ? 0 : Buffer.byteLength(a.output, 'utf8'),
  }));
  const inFlight = task.status === 'running' && (attempts.at(-1)?.attempt ?? 0) < task.attempts;
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
    attempts,
    attemptsNotKept: Math.max(0, task.attempts - attempts.length - (inFlight ? 1 : 0)),
    latest: attempts.at(-1) ?? null,
  };
}
