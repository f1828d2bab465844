import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/long-first-sequencer.js';

/**
 * Unit and integration files own their database and key prefix and run in parallel.
 * End-to-end files start real processes and run after them: those that mostly wait for
 * instants to come (a 3-minute outage, minute boundaries) three at a time, and then the
 * fault-injection files (Redis flushed, processes killed, MySQL away, SIGTERM) two at a
 * time, as they have always run: the suite outgrew CI's 15 minutes with every e2e file
 * two at a time, and three beside a FLUSHDB once cost a run.
 */
const FAULTS = [
  'test/e2e/redis-flush.test.ts',
  'test/e2e/redis-loss-in-flight.test.ts',
  'test/e2e/kill-takeover.test.ts',
  'test/e2e/mysql-outage.test.ts',
  'test/e2e/graceful-shutdown.test.ts',
  'test/e2e/frozen-owner.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      {
        test: {
          name: 'fast',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/hygiene/**/*.test.ts'],
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
          exclude: FAULTS,
          maxWorkers: 3,
          testTimeout: 120_000,
          hookTimeout: 90_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'faults',
          include: FAULTS,
          maxWorkers: 2,
          testTimeout: 120_000,
          hookTimeout: 90_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
