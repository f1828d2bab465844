import type { VersionMatch } from '../src/domain/version-match.js';

/**
 * A timer's ETag is its version, a strong tag (`"3"`): every change bumps it. PATCH, PUT
 * and DELETE honour If-Match with it (optimistic concurrency between editors).
 */
export function etagOf(timer: { version: number }): string {
  return `"${timer.version}"`;
}

/** The headers every single-timer answer carries. */
export function timerHeaders(timer: { version: number }): { etag: string } {
  return { etag: etagOf(timer) };
}

/**
 * An If-Match header as a version condition (undefined without one). `*` matches any
 * existing version; a list matches any of its tags. Weak tags (W/"3") and bare numbers
 * are read too; a tag xtimer cannot have issued matches nothing.
 */
export function ifMatchOf(header: string | undefined): VersionMatch | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  const versions: number[] = [];
  for (const part of header.split(',')) {
    const m = /^\s*(?:W\/)?"?([0-9]{1,15})"?\s*$/.exec(part);
    if (m) versions.push(Number(m[1]));
  }
  return { versions };
}
