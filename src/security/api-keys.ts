import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * App API keys: `xtk_` + 43 base64url characters (32 random bytes). Only their SHA-256
 * is stored; a key of that entropy needs no slow hash, and the digest doubles as the
 * lookup key.
 */

const PREFIX = 'xtk_';

export function newApiKey(): string {
  return `${PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The stored form of an API key: hex SHA-256. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * A key's public id, `<app>:<12 hex digits of its digest>`: names the key in the audit log
 * and the apps API without revealing it (48 bits of a SHA-256 of 256 random bits).
 */
export function apiKeyId(app: string, keyHash: string): string {
  return `${app}:${keyHash.slice(0, 12)}`;
}

/** Does `given` equal `expected`? In time independent of where they differ (and of their lengths). */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Could this be an API key at all? (cheap filter before touching the database) */
export function looksLikeApiKey(token: string): boolean {
  return /^xtk_[A-Za-z0-9_-]{43}$/.test(token);
}
