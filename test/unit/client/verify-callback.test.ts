import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { CallbackVerificationError, verifyCallback } from '../../../client/verify-callback.js';

/** The receiver's signature check, on calls signed here as xtimer signs them. */

const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const TASK = '42_1795372200000';

function signed(body: string): Record<string, string> {
  const at = new Date();
  return {
    'webhook-id': TASK,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(TASK, at, body),
    'x-xtimer-task-id': TASK,
    'x-xtimer-attempt': '2',
  };
}

const RUN = { taskId: TASK, timerId: 42, scheduledAt: 1795372200000, attempt: 2, trigger: 'schedule' };

describe('verifyCallback', () => {
  it.each([
    ['no body', ''],
    ['a JSON body', '{"k":1}'],
    ['a body that is not JSON', 'run=nightly&k=1'],
  ])('returns the run of a signed call with %s', (_what, body) => {
    expect(verifyCallback({ headers: signed(body), body }, secret)).toEqual(RUN);
  });

  it('refuses a body other than the one signed', () => {
    expect(() => verifyCallback({ headers: signed('a'), body: 'b' }, secret)).toThrow(
      CallbackVerificationError,
    );
  });
});
