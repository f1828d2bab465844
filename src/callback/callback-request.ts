import { scheduleOf } from '../domain/schedule/timer-schedule.js';
import type { RunTrigger, Timer } from '../domain/timer.js';
import type { CallSigning, WebhookSigner } from './webhook-signer.js';

/** Everything needed to send a run's callback, built before its due instant. */
export interface PreparedCall {
  origin: string;
  path: string;
  method: Timer['callback']['method'];
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
  /** Signs each attempt (Standard Webhooks); absent for an app without a signing secret. */
  signer?: WebhookSigner | undefined;
  /** Why this call must not be sent at all (it fails at once with this error). */
  refusal?: string | undefined;
}

export const USER_AGENT = 'xtimer/0.1';

/**
 * Builds the request of one attempt. Headers: the task key is the
 * receiver's idempotency key; the attempt number says whether this is a retry; with a
 * signer, the Standard Webhooks headers (webhook-id = the task key).
 */
export function prepareCall(
  timer: Timer,
  taskKey: string,
  runAt: number,
  attempt: number,
  signing: CallSigning = null,
  trigger: RunTrigger = 'schedule',
): PreparedCall {
  const target = targetOf(timer.callback);
  const call: PreparedCall = {
    origin: target.origin,
    path: target.path,
    method: timer.callback.method,
    headers: {
      'user-agent': USER_AGENT,
      ...target.headers,
      'x-xtimer-task-id': taskKey,
      'x-xtimer-timer-id': String(timer.id),
      'x-xtimer-scheduled-at': String(runAt),
      // The run's instant before its jitter shift (the same as the scheduled one without jitter):
      // a retry or a backfill of a scheduled instant names it as the schedule's own calls do.
      'x-xtimer-nominal-at': String(trigger === 'manual' ? runAt : scheduleOf(timer).nominalOf(runAt)),
      'x-xtimer-attempt': String(attempt),
      'x-xtimer-trigger': trigger,
    },
    body: timer.callback.body,
    timeoutMs: timer.callback.timeoutMs,
  };
  if (signing === null) return call;
  if ('refusal' in signing) return { ...call, refusal: signing.refusal };
  return signed({ ...call, signer: signing.signer }, taskKey);
}

/** The call for a later attempt: its number, and a fresh signature timestamp. */
export function withAttempt(call: PreparedCall, attempt: number): PreparedCall {
  const next = { ...call, headers: { ...call.headers, 'x-xtimer-attempt': String(attempt) } };
  return call.signer ? signed(next, call.headers['x-xtimer-task-id']!) : next;
}

function signed(call: PreparedCall, taskKey: string): PreparedCall {
  return { ...call, headers: { ...call.headers, ...call.signer!.sign(taskKey, call.body) } };
}

interface Target {
  origin: string;
  path: string;
  /** The callback's own headers, names in lower case. */
  headers: Record<string, string>;
}

const targets = new WeakMap<Timer['callback'], Target>();

/** What every call of one callback shares, worked out once per timer object rather than per run. */
function targetOf(callback: Timer['callback']): Target {
  let target = targets.get(callback);
  if (!target) {
    const url = new URL(callback.url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(callback.headers)) headers[k.toLowerCase()] = v;
    target = { origin: url.origin, path: `${url.pathname}${url.search}`, headers };
    targets.set(callback, target);
  }
  return target;
}
