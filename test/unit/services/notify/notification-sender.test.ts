import { describe, expect, it } from 'vitest';
import type { PreparedCall } from '../../../../src/callback/callback-request.js';
import { newSigningSecret, signingKeyOf, WebhookSigner } from '../../../../src/callback/webhook-signer.js';
import type { NotifyJobData } from '../../../../src/domain/failure-event.js';
import { NotificationSender } from '../../../../src/services/notify/notification-sender.js';

/** A failure notice as its receiver sees it: its Standard Webhooks id names the notice. */
describe('a failure notice', () => {
  const signer = new WebhookSigner([{ key: signingKeyOf(newSigningSecret()), validUntil: null }]);
  const sent: PreparedCall[] = [];
  const sender = new NotificationSender({
    caller: {
      send: async (call) => {
        sent.push(call);
        return {
          kind: 'response',
          status: 204,
          output: '',
          retryAfter: null,
          sentAt: Date.now(),
          durationMs: 1,
        };
      },
    },
    signing: { forApp: async () => ({ signer }) },
    timeoutMs: 1000,
  });
  const notice = (attempts: number): NotifyJobData => ({
    url: 'https://alerts.example/x',
    app: 'a',
    event: {
      type: 'run.failed',
      timerId: 42,
      app: 'a',
      taskId: '42_1000',
      runAt: new Date(1000).toISOString(),
      attempts,
      httpStatus: 500,
      error: null,
    },
  });

  it('keeps its webhook-id on every try, and a retried run failing again sends a new one', async () => {
    await sender.send(notice(3));
    await sender.send(notice(3));
    await sender.send(notice(4));
    expect(sent.map((c) => c.headers['webhook-id'])).toEqual([
      '42_1000.run.failed.3',
      '42_1000.run.failed.3',
      '42_1000.run.failed.4',
    ]);
  });
});
