import { USER_AGENT } from '../../callback/callback-request.js';
import type { HttpCaller } from '../../callback/http-caller.js';
import { isRetryable, isSuccess } from '../../callback/retry-policy.js';
import type { CallSigning } from '../../callback/webhook-signer.js';
import type { NotifyJobData } from '../../domain/failure-event.js';

/** A notification that did not go through; `final` when trying again cannot help. */
export class NotificationFailed extends Error {
  constructor(
    message: string,
    readonly final: boolean,
  ) {
    super(message);
    this.name = 'NotificationFailed';
  }
}

export interface NotificationSenderDeps {
  caller: Pick<HttpCaller, 'send'>;
  signing: { forApp(app: string): Promise<CallSigning> };
  timeoutMs: number;
}

/**
 * Sends one failure notification: a POST of the event as JSON, signed with the app's
 * Standard Webhooks secret (webhook-id `<taskId>.<type>.<attempts>`: the same on every try
 * of one notice, another for a retried run's second failure), through
 * the callbacks' HTTP client and so through the same SSRF guard. Throws when it must be
 * tried again (the notify queue backs off) or given up.
 */
export class NotificationSender {
  constructor(private readonly d: NotificationSenderDeps) {}

  async send(job: NotifyJobData): Promise<void> {
    const url = new URL(job.url);
    const body = JSON.stringify(job.event);
    const signing = await this.d.signing.forApp(job.app);
    if (signing && 'refusal' in signing) throw new NotificationFailed(signing.refusal, true);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...(signing
        ? signing.signer.sign(`${job.event.taskId}.${job.event.type}.${job.event.attempts}`, body)
        : {}),
    };
    const result = await this.d.caller.send({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers,
      body,
      timeoutMs: this.d.timeoutMs,
    });
    if (isSuccess(result)) return;
    const why = result.kind === 'response' ? `HTTP ${result.status}` : result.error;
    throw new NotificationFailed(`notification to ${url.origin} failed: ${why}`, !isRetryable(result));
  }
}
