import { describe, expect, it } from 'vitest';
import { IntakeLimit } from '../../src/services/intake-limit.js';
import { RunBudget } from '../../src/services/run-budget.js';

/** Two workers' concurrency dials, as BullMQ workers expose them. */
const dials = () => [{ concurrency: 0 }, { concurrency: 0 }];

/** A job worker `worker` holds until released. */
function holdJob(intake: IntakeLimit, worker: number, runs: number) {
  let release!: () => void;
  const done = intake.carry(worker, runs, () => new Promise<void>((r) => (release = r)));
  return { release: () => release(), done };
}

describe('IntakeLimit: an executor takes on no more jobs than its run budget can carry', () => {
  it('starts by assuming large jobs, so a backlog found at start comes in a little at a time', () => {
    const workers = dials();
    new IntakeLimit(new RunBudget(2000), 500, 2).attach(workers);
    expect(workers.map((w) => w.concurrency)).toEqual([10, 10]);
  });

  it('gives each worker room for as many jobs as the free permits fill at the recent runs per job', async () => {
    const budget = new RunBudget(2000);
    const workers = dials();
    const intake = new IntakeLimit(budget, 500, 2).attach(workers);
    // Jobs of 10 runs each pull the estimate down from 100 towards 10.
    const jobs = Array.from({ length: 30 }, () => holdJob(intake, 0, 10));
    for (let i = 0; i < 300; i++) await budget.take();
    intake.adjust();
    const perJob = 10 + 90 * 0.9 ** 30;
    expect(workers[0]!.concurrency).toBe(30 + Math.floor(1700 / (perJob * 2)));
    expect(workers[1]!.concurrency).toBe(Math.floor(1700 / (perJob * 2)));
    for (const j of jobs) j.release();
    await Promise.all(jobs.map((j) => j.done));
    expect(workers[0]!.concurrency).toBe(Math.floor(1700 / (perJob * 2)));
  });

  it('stops fetching past capacity: a worker keeps the jobs it holds and takes no more', async () => {
    const budget = new RunBudget(100);
    const workers = dials();
    const intake = new IntakeLimit(budget, 500, 2).attach(workers);
    const [a, b] = [holdJob(intake, 0, 50), holdJob(intake, 0, 50)];
    for (let i = 0; i < 100; i++) await budget.take();
    const waiting = budget.take();
    expect(workers.map((w) => w.concurrency)).toEqual([2, 1]);
    budget.give();
    await waiting;
    a.release();
    await a.done;
    expect(workers.map((w) => w.concurrency)).toEqual([1, 1]);
    b.release();
    await b.done;
  });

  it('never lets a worker hold more than its share of EXECUTOR_CONCURRENCY', () => {
    const workers = dials();
    new IntakeLimit(new RunBudget(1_000_000), 64, 2).attach(workers);
    expect(workers.map((w) => w.concurrency)).toEqual([64, 64]);
  });
});
