import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../../../src/security/secret-box.js';
import { AppSigningCache } from '../../../../src/services/apps/app-signing-cache.js';
import type { AppCopyRow } from '../../../../src/storage/redis/app-copies.js';

const box = new SecretBox('key-material-0123456789abcdef');
const row = (secret: string): AppCopyRow => ({
  name: 'billing',
  signingSecret: box.seal(secret, 'billing'),
  prevSigningSecret: null,
  prevSigningSecretUntil: null,
  notify: null,
});

describe('the apps’ signing keys, as executors cache them', () => {
  it('does not keep what a load read before a rotation announced while it ran', async () => {
    let stored = row(Buffer.from('the old secret').toString('base64'));
    const loads: Array<() => void> = [];
    const cache = new AppSigningCache(async () => {
      const read = stored;
      await new Promise<void>((resolve) => loads.push(resolve));
      return [read];
    }, box);
    const signatureOf = async () => {
      const signing = await cache.forApp('billing');
      if (!signing || 'refusal' in signing) throw new Error('no signer');
      return signing.signer.sign('1_1', null)['webhook-signature'];
    };

    // The first load reads the old secret; the rotation commits and is announced before it returns.
    const first = signatureOf();
    await expectLoads(loads, 1);
    stored = row(Buffer.from('the new secret').toString('base64'));
    cache.invalidate('billing');
    loads.shift()!();
    const before = await first;

    // The next call reads again, and signs with the new secret.
    const second = signatureOf();
    await expectLoads(loads, 1);
    loads.shift()!();
    expect(await second).not.toEqual(before);
  });
});

/** Waits for the cache to have asked for `n` loads (its batcher asks on a later tick). */
async function expectLoads(loads: unknown[], n: number): Promise<void> {
  for (let i = 0; i < 100 && loads.length < n; i++) await new Promise((r) => setTimeout(r, 5));
  expect(loads).toHaveLength(n);
}
