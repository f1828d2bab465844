import type { MisfirePolicy } from '../timer.js';

export type MisfireDecision = 'fire' | 'missed';

/**
 * What to do with a run picked up at `now`. A run late by no more than the
 * threshold always fires. A run later than that is "missed" and follows the policy:
 * `fire_all` fires it, `skip` records it missed, and `fire_once` fires only the latest
 * missed run — the one whose successor is not missed itself (due within the threshold,
 * or not yet due) — and records the others missed. Deciding from the schedule alone
 * needs no coordination: whichever process picks a run up decides the same way.
 */
export function misfireDecision(
  policy: MisfirePolicy,
  thresholdMs: number,
  runAt: number,
  now: number,
  successorOf: (runAt: number) => number | null,
): MisfireDecision {
  if (now - runAt <= thresholdMs) return 'fire';
  if (policy === 'fire_all') return 'fire';
  if (policy === 'skip') return 'missed';
  const next = successorOf(runAt);
  return next === null || now - next <= thresholdMs ? 'fire' : 'missed';
}
