import { describe, expect, it } from 'vitest';
import { executeJobs, RUN_BATCH_MAX, runsOf } from '../../../../src/storage/redis/queues.js';

const at = Date.UTC(2026, 10, 22, 10, 5, 3);
const refs = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ timerId: from + i, runAt: at }));

describe('executeJobs', () => {
  it('queues a lone run as its own job under its task key', () => {
    const [job, ...rest] = executeJobs([{ timerId: 42, runAt: at, version: 3 }], 'planner');
    expect(rest).toEqual([]);
    expect(job).toEqual({
      name: `42_${at}`,
      data: { timerId: 42, runAt: at, slice: 'planner', version: 3 },
      opts: { jobId: `42_${at}` },
    });
  });

  it('queues several runs as one batch named by slice, time and size', () => {
    const jobs = executeJobs(refs(3), '2026-11-22T10:05_4');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.name).toBe('2026-11-22T10:05_4 10:05:03Z ×3');
    expect(jobs[0]!.opts.jobId).toMatch(/^batch_2026-11-22T10-05_4_[0-9a-f]{16}$/);
    expect(runsOf(jobs[0]!.data)).toEqual(refs(3).map((r) => ({ ...r, slice: '2026-11-22T10:05_4' })));
  });

  it('splits a large read into batches of at most RUN_BATCH_MAX, losing none', () => {
    const runs = refs(RUN_BATCH_MAX * 2 + 1);
    const jobs = executeJobs(runs, 'migrator');
    expect(jobs.map((j) => runsOf(j.data).length)).toEqual([RUN_BATCH_MAX, RUN_BATCH_MAX, 1]);
    expect(jobs.flatMap((j) => runsOf(j.data).map((r) => r.timerId))).toEqual(runs.map((r) => r.timerId));
    expect(new Set(jobs.map((j) => j.opts.jobId)).size).toBe(3);
  });

  it('gives the same runs the same job id, and different runs a different one', () => {
    const id = (runs: ReturnType<typeof refs>) => executeJobs(runs, 's')[0]!.opts.jobId;
    expect(id(refs(5))).toBe(id(refs(5)));
    expect(id(refs(5))).not.toBe(id(refs(6)));
    expect(id(refs(5))).not.toBe(id(refs(5, 2)));
  });
});
