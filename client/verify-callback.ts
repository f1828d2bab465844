import { Webhook } from 'standardwebhooks';
import type { components } from './openapi-types.js';

/** A run as its callback's headers tell it. */
export interface XtimerRun {
  /** The task key `${timerId}_${scheduledAt}`: the receiver's idempotency key (X-Xtimer-Task-Id). */
  taskId: string;
  timerId: number;
  /** The run's scheduled instant, epoch ms (X-Xtimer-Scheduled-At). */
  scheduledAt: number;
  /** 1 for the first call; higher for a retry of the same run (X-Xtimer-Attempt). */
  attempt: number;
  /** What made the run (X-Xtimer-Trigger). */
  trigger: components['schemas']['Task']['trigger'];
}

/** A callback as the receiver got it: its headers (a `Headers` or a plain object) and its raw body. */
export interface CallbackRequest {
  headers: Headers | Record<string, string | readonly string[] | undefined>;
  /** The body exactly as received (not parsed and re-serialised): the signature covers its bytes. */
  body: string;
}

/** A callback whose signature is missing or wrong, or whose headers contradict it. */
export class CallbackVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackVerificationError';
  }
}

const TRIGGERS = ['schedule', 'manual', 'retry', 'backfill'] as const;
const TASK_KEY = /^([1-9][0-9]{0,15})_([0-9]{1,15})$/;

function headerReader(headers: CallbackRequest['headers']): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (name) => (headers as Headers).get(name) ?? undefined;
  }
  const lower = new Map(
    Object.entries(headers as Record<string, string | readonly string[] | undefined>).map(([k, v]) => [
      k.toLowerCase(),
      v,
    ]),
  );
  return (name) => {
    const v = lower.get(name);
    return Array.isArray(v) ? v.join(', ') : (v as string | undefined);
  };
}

/**
 * Verifies an xtimer callback signed with the app's signing secret (`whsec_…`), the
 * Standard Webhooks way: `webhook-signature` over `webhook-id.webhook-timestamp.body`,
 * with a timestamp no more than 5 minutes off. Returns the run it is for. Throws
 * CallbackVerificationError when the signature is missing, wrong or stale, or when the
 * X-Xtimer-* headers do not match the signed task id (`webhook-id`).
 *
 * `attempt` and `trigger` are read from their headers, which the signature does not cover.
 */
export function verifyCallback(request: CallbackRequest, secret: string): XtimerRun {
  const header = headerReader(request.headers);
  const signed: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = header(name);
    if (!value) {
      throw new CallbackVerificationError(
        `the ${name} header is missing: the callback is not signed (has the app a signing secret?)`,
      );
    }
    signed[name] = value;
  }
  try {
    // Not parsed: a timer's body is whatever it set, often not JSON, and only the bytes are signed.
    new Webhook(secret).verify(request.body, signed, { jsonParse: false });
  } catch (err) {
    throw new CallbackVerificationError(`signature check failed: ${(err as Error).message}`);
  }
  const taskId = signed['webhook-id']!;
  const key = TASK_KEY.exec(taskId);
  if (!key)
    throw new CallbackVerificationError(`webhook-id ${JSON.stringify(taskId)} is not an xtimer task id`);
  const timerId = Number(key[1]);
  const scheduledAt = Number(key[2]);
  // The X-Xtimer-* headers are not signed: they must say what the signed task id says.
  const agrees = (name: string, value: string) => {
    const got = header(name);
    if (got !== undefined && got !== value) {
      throw new CallbackVerificationError(
        `${name} ${JSON.stringify(got)} does not match the signed task id ${taskId}`,
      );
    }
  };
  agrees('x-xtimer-task-id', taskId);
  agrees('x-xtimer-timer-id', String(timerId));
  agrees('x-xtimer-scheduled-at', String(scheduledAt));
  const attempt = Number(header('x-xtimer-attempt') ?? '1');
  const trigger = (header('x-xtimer-trigger') ?? 'schedule') as XtimerRun['trigger'];
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new CallbackVerificationError('x-xtimer-attempt is not a positive number');
  if (!TRIGGERS.includes(trigger))
    throw new CallbackVerificationError(`x-xtimer-trigger ${JSON.stringify(trigger)} is unknown`);
  return { taskId, timerId, scheduledAt, attempt, trigger };
}
