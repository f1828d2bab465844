import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import type { Delivery } from '../helpers/sink.js';
import { eventually } from '../helpers/stores.js';

/**
 * Signed callbacks end to end: a real process with XTIMER_ADMIN_TOKEN set; an app created with
 * the admin token; a timer created with the app's key; its deliveries verified with
 * the `standardwebhooks` package exactly as a receiver would, before, during and after
 * a signing-secret rotation.
 */

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

const e2e = useCluster('signed', {
  env: { XTIMER_ADMIN_TOKEN: ADMIN_TOKEN, XTIMER_SECRET_KEY: 'e2e-secret-key-0123456789abcdef' },
});

async function api(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${e2e.base}${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The webhook headers of a delivery, as a receiver hands them to the library. */
const webhookHeaders = (d: Delivery) => ({
  'webhook-id': String(d.headers['webhook-id']),
  'webhook-timestamp': String(d.headers['webhook-timestamp']),
  'webhook-signature': String(d.headers['webhook-signature']),
});

const verifies = (secret: string, d: Delivery): boolean => {
  try {
    new Webhook(secret).verify(d.body, webhookHeaders(d));
    return true;
  } catch {
    return false;
  }
};

const signatureCount = (d: Delivery) => String(d.headers['webhook-signature']).split(' ').length;

describe('signed callbacks', () => {
  it('refuses the API without a token, over real HTTP', async () => {
    const res = await api('GET', '/api/v1/timers', null);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('signs every delivery the Standard Webhooks way, through a secret rotation and its end', async () => {
    const created = await api('POST', '/api/v1/apps', ADMIN_TOKEN, { app: 'signed' });
    expect(created.status).toBe(201);
    const apiKey: string = created.body.apiKey;
    const firstSecret: string = created.body.signingSecret;

    // Every second; the first attempt of each run answered 500, so each run is also retried.
    e2e.sink.respond = (d) => (d.attempt === 1 ? { status: 500 } : { status: 200 });
    const timer = await api('POST', '/api/v1/timers', apiKey, {
      app: 'signed',
      name: 'signed-every-second',
      cron: '* * * * * *',
      status: 'active',
      retry: { maxAttempts: 2, backoffMs: 1200 },
      callback: { url: e2e.sink.url('/signed'), body: '{"invoice": 42, "note": "ünïcode"}' },
    });
    expect(timer.status).toBe(201);
    const id: number = timer.body.id;

    const before = await eventually(
      () => e2e.sink.forTimer(id).length >= 4 && e2e.sink.forTimer(id),
      '4 signed deliveries',
      20_000,
    );
    for (const d of before) {
      expect(d.headers['webhook-id']).toBe(d.taskId);
      const ts = Number(d.headers['webhook-timestamp']);
      expect(Math.abs(ts * 1000 - d.arrivedAt)).toBeLessThan(5000);
      expect(signatureCount(d)).toBe(1);
      expect(verifies(firstSecret, d)).toBe(true);
      expect(verifies('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', d)).toBe(false);
    }
    // A retry carries the same webhook-id and a timestamp of its own attempt.
    const retried = await eventually(() => {
      const byTask = new Map<string, Delivery[]>();
      for (const d of e2e.sink.forTimer(id)) byTask.set(d.taskId, [...(byTask.get(d.taskId) ?? []), d]);
      return [...byTask.values()].find((ds) => ds.length >= 2);
    }, 'a retried run');
    const [first, second] = retried.sort((a, b) => a.attempt - b.attempt);
    expect(second!.attempt).toBe(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    // Signed when the retry was sent, not when the run was first prepared.
    expect(Number(second!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
      Math.floor(first!.arrivedAt / 1000),
    );
    expect(verifies(firstSecret, second!)).toBe(true);

    // Rotate (as the app itself): both signatures while the old secret is in its grace.
    const rotated = await api('POST', '/api/v1/apps/signed/rotate', apiKey, {
      rotate: 'secret',
      graceSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    const secondSecret: string = rotated.body.signingSecret;
    const rotatedAt = Date.now();
    const during = await eventually(
      () => {
        const found = e2e.sink.forTimer(id).filter((d) => d.arrivedAt > rotatedAt && signatureCount(d) === 2);
        return found.length >= 2 && found;
      },
      'deliveries signed with both secrets',
      15_000,
    );
    for (const d of during) {
      expect(verifies(firstSecret, d)).toBe(true);
      expect(verifies(secondSecret, d)).toBe(true);
      // Each signature on its own verifies with its own secret.
      const [sigA, sigB] = String(d.headers['webhook-signature']).split(' ');
      const alone = (sig: string) => ({ ...d, headers: { ...d.headers, 'webhook-signature': sig } });
      expect(verifies(secondSecret, alone(sigA!))).toBe(true);
      expect(verifies(firstSecret, alone(sigB!))).toBe(true);
      expect(verifies(firstSecret, alone(sigA!))).toBe(false);
    }

    // Rotate again, revoking at once: the newest secret alone signs, the first verifies nothing.
    const revoked = await api('POST', '/api/v1/apps/signed/rotate', ADMIN_TOKEN, {
      rotate: 'secret',
      graceSeconds: 0,
    });
    expect(revoked.status).toBe(200);
    const thirdSecret: string = revoked.body.signingSecret;
    const revokedAt = Date.now();
    const after = await eventually(
      () => {
        const found = e2e.sink
          .forTimer(id)
          .filter((d) => d.arrivedAt > revokedAt && verifies(thirdSecret, d));
        return found.length >= 2 && found;
      },
      'deliveries signed with the third secret',
      15_000,
    );
    for (const d of after) {
      expect(signatureCount(d)).toBe(1);
      expect(verifies(secondSecret, d)).toBe(false);
      expect(verifies(firstSecret, d)).toBe(false);
    }
    // No delivery ever went out unsigned.
    expect(e2e.sink.forTimer(id).every((d) => typeof d.headers['webhook-signature'] === 'string')).toBe(true);
  });
});
