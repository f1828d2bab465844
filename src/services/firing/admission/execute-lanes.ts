import { type ExecuteJobData, runsOf } from '../../../storage/redis/queues.js';

/**
 * A job fetched from `execute` whose every run is overdue by more than this is not run
 * there: it goes on to the catch-up lane `execute-late` (executors fetch within
 * milliseconds while they keep up, so such a job has waited behind a backlog).
 */
export const LANE_BEHIND_MS = 2000;

/**
 * Whether a job fetched from `execute` at `now` belongs in the catch-up lane, so the
 * service recovers from overload. Past capacity, runs wait in `execute`; in one FIFO
 * queue the runs due after the load drops would wait behind the whole backlog, late by as
 * long as it takes to drain. So `execute` keeps only what is at most LANE_BEHIND_MS
 * overdue: an executor hands an older job on to `execute-late` as it fetches it, and
 * works that lane beside `execute` with a small share of its capacity. Once the load
 * drops, `execute` holds only the runs due now and they are on time within seconds, while
 * the backlog drains beside them (or is recorded missed by its timers' misfire policy).
 * The oldest runs are the ones moved, never the newest, and a move is the same job under
 * the same id: each run is still queued once. A retry stays: it is due at the end of its
 * backoff, not at its run's time, and BullMQ hands it out then.
 */
export function belongsInCatchUpLane(data: ExecuteJobData, now: number): boolean {
  if (data.slice === 'retry') return false;
  return runsOf(data).every((r) => r.runAt < now - LANE_BEHIND_MS);
}
