import { describe, expect, it } from 'vitest';
import {
  belongsInCatchUpLane,
  LANE_BEHIND_MS,
} from '../../../../../src/services/firing/admission/execute-lanes.js';
import { continuationJob, executeJobs } from '../../../../../src/storage/redis/queues.js';

const NOW = Date.parse('2030-05-01T08:00:00Z');

/** The data of the job a fan-out of runs due at these offsets from NOW queues. */
function jobDueAt(...offsetsMs: number[]) {
  const runs = offsetsMs.map((ms, i) => ({ timerId: i + 1, runAt: NOW + ms, version: 1 }));
  const [job] = executeJobs(runs, '2030-05-01T07:59_3');
  if (!job) throw new Error('no job');
  return job.data;
}

describe('a job fetched from `execute`', () => {
  it('stays while its runs are due, or overdue by no more than LANE_BEHIND_MS', () => {
    expect(belongsInCatchUpLane(jobDueAt(500), NOW)).toBe(false);
    expect(belongsInCatchUpLane(jobDueAt(-LANE_BEHIND_MS), NOW)).toBe(false);
    expect(belongsInCatchUpLane(jobDueAt(-LANE_BEHIND_MS, -LANE_BEHIND_MS), NOW)).toBe(false);
  });

  it('goes on to the catch-up lane once every run in it is overdue by more', () => {
    expect(belongsInCatchUpLane(jobDueAt(-LANE_BEHIND_MS - 1), NOW)).toBe(true);
    expect(belongsInCatchUpLane(jobDueAt(-60_000, -LANE_BEHIND_MS - 1), NOW)).toBe(true);
  });

  it('stays while one of its runs is still recent: the job is not split', () => {
    expect(belongsInCatchUpLane(jobDueAt(-60_000, -100), NOW)).toBe(false);
  });

  it("stays when it is a retry: due at the end of its backoff, not at its run's time", () => {
    const retry = continuationJob({ timerId: 1, runAt: NOW - 60_000, afterAttempt: 1 }, 'retry', 30_000);
    expect(belongsInCatchUpLane(retry.data, NOW)).toBe(false);
  });
});
