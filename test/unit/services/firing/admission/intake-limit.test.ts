import { describe, expect, it } from 'vitest';
import { IntakeLimit } from '../../../../../src/services/firing/admission/intake-limit.js';
import { RUN_BATCH_MAX } from '../../../../../src/storage/redis/queues.js';

/** Two workers' concurrency dials, as BullMQ workers expose them. */
const dials = () => [{ concurrency: 0 }, { concurrency: 0 }];

describe('IntakeLimit: an executor holds no more runs than EXECUTOR_MAX_RUNS', () => {
  it('starts by assuming the largest jobs, so a backlog found at start comes in a little at a time', () => {
    const workers = dials();
    new IntakeLimit(20 * RUN_BATCH_MAX, 2500, 2).attach(workers);
    expect(workers.map((w) => w.concurrency)).toEqual([10, 10]);
  });

  it('counts a job as it is fetched, so a burst stops once the free runs are spoken for', () => {
    const workers = dials();
    const intake = new IntakeLimit(2000, 2500, 2).attach(workers);
    // The estimate follows jobs of 100 runs down from 500.
    for (let i = 0; i < 100; i++) {
      intake.fetched(1, 100);
      intake.done(1, 100);
    }
    expect(workers.map((w) => w.concurrency)).toEqual([10, 10]);
    // Each job fetched takes 100 of the 2,000 runs: room shrinks as the burst goes on.
    for (let i = 0; i < 10; i++) intake.fetched(0, 100);
    expect(intake.heldRuns).toBe(1000);
    expect(workers.map((w) => w.concurrency)).toEqual([10 + 5, 5]);
    for (let i = 0; i < 10; i++) intake.fetched(1, 100);
    expect(workers.map((w) => w.concurrency)).toEqual([10, 10]);
    // Full: a worker keeps the jobs it holds and fetches no more.
    intake.done(0, 100);
    expect(workers.map((w) => w.concurrency)).toEqual([9, 10]);
  });

  it('follows a jump to large jobs at once, so the next burst is small', () => {
    const workers = dials();
    const intake = new IntakeLimit(2000, 2500, 2).attach(workers);
    for (let i = 0; i < 200; i++) {
      intake.fetched(0, 1);
      intake.done(0, 1);
    }
    expect(workers[0]!.concurrency).toBe(1000);
    intake.fetched(0, RUN_BATCH_MAX);
    expect(workers[0]!.concurrency).toBe(1 + Math.floor((2000 - RUN_BATCH_MAX) / (RUN_BATCH_MAX * 2)));
  });

  it('lets a worker that holds nothing fetch one job even when the process is full', () => {
    const workers = dials();
    const intake = new IntakeLimit(100, 2500, 2).attach(workers);
    intake.fetched(0, 100);
    expect(workers.map((w) => w.concurrency)).toEqual([1, 1]);
  });

  it('never lets a worker hold more than its share of EXECUTOR_CONCURRENCY', () => {
    const workers = dials();
    const intake = new IntakeLimit(1_000_000, 64, 2).attach(workers);
    intake.fetched(0, 1);
    expect(workers.map((w) => w.concurrency)).toEqual([64, 64]);
  });
});
