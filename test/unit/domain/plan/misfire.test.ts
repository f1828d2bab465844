import { describe, expect, it } from 'vitest';
import { misfireDecision } from '../../../../src/domain/plan/misfire.js';

// An every-10-seconds schedule: the successor of t is t + 10 s.
const successor = (t: number) => t + 10_000;
const NOW = 1_000_000_000;

describe('misfire policy', () => {
  it('always fires a run late by no more than the threshold', () => {
    for (const policy of ['fire_once', 'fire_all', 'skip'] as const) {
      expect(misfireDecision(policy, 60_000, NOW - 60_000, NOW, successor)).toBe('fire');
    }
  });

  it('fire_all fires every missed run; skip fires none', () => {
    expect(misfireDecision('fire_all', 60_000, NOW - 180_000, NOW, successor)).toBe('fire');
    expect(misfireDecision('skip', 60_000, NOW - 60_001, NOW, successor)).toBe('missed');
  });

  it('fire_once fires only the latest missed run (its successor is not missed)', () => {
    const missedRuns = [];
    for (let t = NOW - 180_000; t < NOW - 60_000; t += 10_000) missedRuns.push(t);
    const fired = missedRuns.filter(
      (t) => misfireDecision('fire_once', 60_000, t, NOW, successor) === 'fire',
    );
    expect(fired).toEqual([NOW - 70_000]);
  });

  it('fire_once fires a missed run whose timer has no later run', () => {
    expect(misfireDecision('fire_once', 60_000, NOW - 3_600_000, NOW, () => null)).toBe('fire');
  });
});
