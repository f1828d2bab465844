import { stablePick } from '../../lib/stable-hash.js';

/** The most a run may be shifted: an hour. */
export const MAX_JITTER_MS = 3_600_000;

/**
 * How far a run of `timerId` due at the nominal instant `nominalMs` is shifted, in
 * [0, jitterMs): from the timer id and the instant alone, so every node, every re-plan
 * and every plan after Redis lost its data puts the run at the same instant (one task
 * key, never two).
 */
export function jitterOffset(timerId: number, nominalMs: number, jitterMs: number): number {
  return jitterMs <= 1 ? 0 : stablePick(`${timerId}@${nominalMs}`, jitterMs);
}
