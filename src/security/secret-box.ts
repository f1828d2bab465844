import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts the apps' signing secrets at rest (AES-256-GCM). They cannot be hashed like
 * API keys: the executor needs them back to sign. The key is derived (HKDF-SHA256) from
 * XTIMER_SECRET_KEY; without one (open mode) a fixed development key is used, which
 * hides the secrets from a casual look at the table and nothing more (docs/security.md).
 * The app name is bound in as associated data, so a ciphertext moved to another app's
 * row does not decrypt.
 */

const VERSION = 'v1';
const DEVELOPMENT_KEY_MATERIAL = 'xtimer-development-secret-key: set XTIMER_SECRET_KEY';

export class SecretBox {
  private readonly key: Buffer;

  constructor(keyMaterial: string | undefined) {
    this.key = Buffer.from(
      hkdfSync('sha256', keyMaterial ?? DEVELOPMENT_KEY_MATERIAL, 'xtimer', 'signing-secrets/v1', 32),
    );
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The plaintext; throws if the box was sealed with another key or for another context. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('not a sealed secret');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
