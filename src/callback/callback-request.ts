import type { Timer } from '../domain/timer.js';

/** Everything needed to send a run's callback, built before its due instant. */
export interface PreparedCall {
  origin: string;
  path: string;
  method: Timer['callback']['method'];
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
}

export const USER_AGENT = 'xtimer/0.1';

/**
 * Builds the request of one attempt. Headers (SPEC §6): the task key is the
 * receiver's idempotency key; the attempt number says whether this is a retry.
 */
export function prepareCall(timer: Timer, taskKey: string, runAt: number, attempt: number): PreparedCall {
  const url = new URL(timer.callback.url);
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: timer.callback.method,
    headers: {
      'user-agent': USER_AGENT,
      ...lowerCaseKeys(timer.callback.headers),
      'x-xtimer-task-id': taskKey,
      'x-xtimer-timer-id': String(timer.id),
      'x-xtimer-scheduled-at': String(runAt),
      'x-xtimer-attempt': String(attempt),
    },
    body: timer.callback.body,
    timeoutMs: timer.callback.timeoutMs,
  };
}

export function withAttempt(call: PreparedCall, attempt: number): PreparedCall {
  return { ...call, headers: { ...call.headers, 'x-xtimer-attempt': String(attempt) } };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}
