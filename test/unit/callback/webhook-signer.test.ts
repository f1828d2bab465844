import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { prepareCall, withAttempt } from '../../../src/callback/callback-request.js';
import { newSigningSecret, signingKeyOf, WebhookSigner } from '../../../src/callback/webhook-signer.js';
import type { Timer } from '../../../src/domain/timer.js';
import { SecretBox } from '../../../src/security/secret-box.js';
import { testTimer } from '../../helpers/timers.js';

/** Standard Webhooks signing, checked against the reference library a receiver uses. */

const timer: Timer = testTimer({
  callback: {
    url: 'https://hooks.example/run?x=1',
    method: 'POST',
    headers: {},
    body: '{"k": 1}',
    timeoutMs: 5000,
  },
});

const headersOf = (h: Record<string, string>) => ({
  'webhook-id': h['webhook-id']!,
  'webhook-timestamp': h['webhook-timestamp']!,
  'webhook-signature': h['webhook-signature']!,
});

describe('WebhookSigner', () => {
  it('issues whsec_ secrets of 32 random bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKeyOf(secret)).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('signs exactly as the standardwebhooks library does', () => {
    const secret = newSigningSecret();
    const now = Date.now();
    const signer = new WebhookSigner([{ key: signingKeyOf(secret), validUntil: null }], () => now);
    const h = signer.sign('42_1000', '{"k": 1}');
    expect(h['webhook-id']).toBe('42_1000');
    expect(h['webhook-timestamp']).toBe(String(Math.floor(now / 1000)));
    expect(h['webhook-signature']).toBe(new Webhook(secret).sign('42_1000', new Date(now), '{"k": 1}'));
    expect(new Webhook(secret).verify('{"k": 1}', h)).toEqual({ k: 1 });
    expect(() => new Webhook(secret).verify('{"k": 2}', h)).toThrow();
  });

  it('sends both signatures while the previous secret is in its grace, then only the current', () => {
    const current = newSigningSecret();
    const previous = newSigningSecret();
    let now = Date.now();
    const signer = new WebhookSigner(
      [
        { key: signingKeyOf(current), validUntil: null },
        { key: signingKeyOf(previous), validUntil: now + 1000 },
      ],
      () => now,
    );
    const during = signer.sign('1_1', '');
    expect(during['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify('', during)).not.toThrow();
    expect(() => new Webhook(previous).verify('', during)).not.toThrow();
    now += 1000;
    const after = signer.sign('1_1', null);
    expect(after['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(previous).verify('', after)).toThrow();
  });
});

describe('prepareCall with signing', () => {
  it('adds the webhook headers, keyed by the task key, and re-signs each attempt', () => {
    const secret = newSigningSecret();
    let now = Date.UTC(2030, 0, 1);
    const signer = new WebhookSigner([{ key: signingKeyOf(secret), validUntil: null }], () => now);
    const call = prepareCall(timer, '42_1000', 1000, 1, { signer });
    expect(call.headers['webhook-id']).toBe('42_1000');
    expect(call.headers['x-xtimer-task-id']).toBe('42_1000');
    now += 5000;
    const retry = withAttempt(call, 2);
    expect(retry.headers['x-xtimer-attempt']).toBe('2');
    expect(Number(retry.headers['webhook-timestamp'])).toBe(Number(call.headers['webhook-timestamp']) + 5);
    expect(retry.headers['webhook-id']).toBe('42_1000');
    const wh = new Webhook(secret);
    // Verify at the signing time the library would accept.
    expect(wh.sign('42_1000', new Date(now), '{"k": 1}')).toBe(retry.headers['webhook-signature']);
    expect(headersOf(call.headers)['webhook-signature']).toMatch(/^v1,/);
  });

  it('leaves calls of unsigned apps alone, and marks a refusal', () => {
    expect(prepareCall(timer, '42_1000', 1000, 1).headers['webhook-signature']).toBeUndefined();
    const refused = prepareCall(timer, '42_1000', 1000, 1, { refusal: 'SIGNING_SECRET_UNREADABLE: x' });
    expect(refused.refusal).toBe('SIGNING_SECRET_UNREADABLE: x');
    expect(refused.headers['webhook-signature']).toBeUndefined();
  });
});

describe('SecretBox', () => {
  it('opens what it sealed, for the same app only, and not under another key', () => {
    const box = new SecretBox('key-material-0123456789abcdef');
    const sealed = box.seal('whsec_abc', 'billing');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed, 'billing')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'other')).toThrow();
    expect(() => new SecretBox('another-key-0123456789abcdef').open(sealed, 'billing')).toThrow();
    expect(() => new SecretBox(undefined).open(sealed, 'billing')).toThrow();
    expect(box.seal('whsec_abc', 'billing')).not.toBe(sealed);
  });
});
