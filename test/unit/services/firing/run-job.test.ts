import { describe, expect, it } from 'vitest';
import { RunBudget } from '../../../../src/services/firing/admission/run-budget.js';
import { JobRuns, RunJob } from '../../../../src/services/firing/run-job.js';

describe('JobRuns', () => {
  it('settles with every report in the job order once the last run has left', async () => {
    const runs = new JobRuns(3);
    const jobs = [0, 1, 2].map((i) => new RunJob(runs, i, undefined));
    let settled = false;
    void runs.reports.then(() => (settled = true));
    jobs[2]?.leave({ verdict: 'succeeded' });
    jobs[0]?.leave({ verdict: 'deferred' });
    await Promise.resolve();
    expect(settled).toBe(false);
    jobs[1]?.leave({ verdict: 'failed' });
    expect(await runs.reports).toEqual([
      { verdict: 'deferred' },
      { verdict: 'failed' },
      { verdict: 'succeeded' },
    ]);
  });

  it('fails with the first failure in the job order, only after every run has left', async () => {
    const runs = new JobRuns(3);
    const jobs = [0, 1, 2].map((i) => new RunJob(runs, i, undefined));
    let failed: unknown = null;
    void runs.reports.catch((err) => (failed = err));
    expect(jobs[2]?.fail(new Error('third'))).toBe(true);
    expect(jobs[1]?.fail(new Error('second'))).toBe(true);
    await Promise.resolve();
    expect(failed).toBeNull();
    jobs[0]?.leave({ verdict: 'succeeded' });
    await expect(runs.reports).rejects.toThrow('second');
  });

  it('counts a run once: a detached run that fails later leaves its report as it was', async () => {
    const runs = new JobRuns(1);
    const job = new RunJob(runs, 0, undefined);
    job.leave({ verdict: 'deferred' });
    expect(job.fail(new Error('later'))).toBe(false);
    expect(await runs.reports).toEqual([{ verdict: 'deferred' }]);
  });

  it('settles at once with no runs', async () => {
    expect(await new JobRuns(0).reports).toEqual([]);
  });

  it('gives its permit back as the run leaves, once', async () => {
    const budget = new RunBudget(1);
    const job = new RunJob(new JobRuns(1), 0, budget);
    expect(await budget.take()).toBe(true);
    job.permit = true;
    const waiter = budget.take();
    job.leave({ verdict: 'deferred' });
    expect(await waiter).toBe(true);
    job.fail(new Error('later'));
    let third = false;
    void budget.take().then(() => (third = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    budget.close();
  });
});
