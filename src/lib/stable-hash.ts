/**
 * A 32-bit hash of a string that every node and every release computes the same way
 * (FNV-1a over UTF-16 code units, then murmur3's finaliser so nearby inputs such as
 * `timer-1`, `timer-2` land far apart). For spreading load, not for security.
 */
export function stableHash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A stable choice in [0, n) for `text` (n ≤ 2^32; the modulo bias is below n / 2^32). */
export function stablePick(text: string, n: number): number {
  return n <= 1 ? 0 : stableHash32(text) % n;
}
