/**
 * The layout of the per-day bloom filter of executed task keys: a
 * fast "certainly never ran" before a run is called. The scripts that claim and finish
 * runs read and set its bits (claim-runs.lua, finish-runs.lua); this says where.
 */
export interface BloomSettings {
  /** Size of each day's filter in bits (16 MiB by default: ~5% false positives at 20M runs a day). */
  bits: number;
  hashes: number;
  ttlMs: number;
}

export const DEFAULT_BLOOM: BloomSettings = { bits: 2 ** 27, hashes: 3, ttlMs: 48 * 3600_000 };

/** 'no': certainly never ran; 'maybe': its bits are set; 'unknown': the filter cannot tell (ask MySQL). */
export type BloomAnswer = 'no' | 'maybe' | 'unknown';

/** Bits before the filter proper: the filter's creation time (u48). */
const HEADER_BITS = 64;

function fnv1a(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The bit offsets of a task key: k positions by double hashing (Kirsch–Mitzenmacher). */
export function bloomOffsets(taskKey: string, settings: BloomSettings = DEFAULT_BLOOM): number[] {
  const h1 = fnv1a(taskKey, 0x811c9dc5);
  const h2 = fnv1a(taskKey, 0x01234567) | 1;
  const out: number[] = [];
  for (let i = 0; i < settings.hashes; i++) {
    out.push(HEADER_BITS + (((h1 + Math.imul(i, h2)) >>> 0) % settings.bits));
  }
  return out;
}
