import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-id`
 * (the task key, the same on every attempt), `webhook-timestamp` (seconds, per attempt)
 * and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the
 * secret's decoded bytes. While a rotated-out secret is in its grace period both
 * signatures are sent, space-separated, so receivers on either secret verify.
 */

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a `whsec_<base64>` secret. */
export function signingKeyOf(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error('empty signing secret');
  return key;
}

export interface SigningKey {
  key: Buffer;
  /** Epoch ms after which this key no longer signs (a rotated-out secret); null = current. */
  validUntil: number | null;
}

export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** Signs one app's callbacks with its current (and, during a rotation, previous) secret. */
export class WebhookSigner {
  constructor(
    private readonly keys: readonly SigningKey[],
    private readonly now: () => number = Date.now,
  ) {}

  sign(id: string, body: string | null): SignatureHeaders {
    const now = this.now();
    const timestamp = Math.floor(now / 1000);
    const signatures: string[] = [];
    for (const k of this.keys) {
      if (k.validUntil !== null && k.validUntil <= now) continue;
      const mac = createHmac('sha256', k.key)
        .update(`${id}.${timestamp}.${body ?? ''}`)
        .digest('base64');
      signatures.push(`v1,${mac}`);
    }
    return {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatures.join(' '),
    };
  }
}

/**
 * How a run's callback is signed: a signer, nothing (the timer's app has no signing
 * secret), or a refusal — the app has one this process cannot read (XTIMER_SECRET_KEY
 * differs from the one that stored it), and an unsigned call must not go out instead.
 */
export type CallSigning = { signer: WebhookSigner } | { refusal: string } | null;
