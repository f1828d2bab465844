/**
 * A seeded random source for chaos tests, so a failing run can be replayed: the seed is
 * CHAOS_SEED when set, else a fresh one; the test prints it either way.
 */
export function seededRandom(label: string): { seed: number; next(): number } {
  const given = process.env.CHAOS_SEED;
  const seed = given !== undefined && given !== '' ? Number(given) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
  // Printed so a failing run can be replayed.
  console.log(`${label}: CHAOS_SEED=${seed}`);
  let state = seed;
  return {
    seed,
    // mulberry32
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    },
  };
}
