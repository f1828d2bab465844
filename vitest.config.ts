import { defineConfig } from 'vitest/config';

/**
 * Unit and integration files own their database and key prefix and run in parallel;
 * end-to-end files start real processes and run after them, three at a time: most of
 * their time is waiting for instants to come (a 3-minute outage, minute boundaries), and
 * two at a time took the suite past CI's 15 minutes.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        test: {
          name: 'fast',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          maxWorkers: 3,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          maxWorkers: 3,
          testTimeout: 120_000,
          hookTimeout: 90_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
