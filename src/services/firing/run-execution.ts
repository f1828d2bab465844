import type { TaskStatus, Timer } from '../../domain/timer.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RunJobData } from '../../storage/redis/queues.js';
import type { FinalStatus } from '../../storage/redis/runs/claim-record.js';
import type { RunRef } from '../../storage/redis/runs/run-claims.js';
import type { Lease } from './lease-keeper.js';
import type { CachedTimer } from './timer-cache.js';

// What the run executor and its parts (the claim, the judgement, the outcome) share: one
// run's execution and how it ends.

/** A run handed to the executor: the run as queued, and where it came from. */
export type RunToExecute = RunJobData;

/**
 * How a run's execution ended for the job that carried it: a final status; `duplicate`
 * (another copy owns or finished it); `withdrawn` (shutdown: its job goes back to wait);
 * `retrying` (a retry job carries it on after its backoff); `deferred` (it waits in this
 * process for a slot of its app, and no longer needs its job).
 */
export type RunVerdict = TaskStatus | 'duplicate' | 'withdrawn' | 'retrying' | 'deferred';

export interface RunReport {
  verdict: RunVerdict;
  attempt?: number;
  httpStatus?: number | null;
  latencyMs?: number;
}

/** A run that reached its final outcome, as the aftermath sees it. */
export interface SettledRun {
  timer: Timer;
  run: RunToExecute;
  status: FinalStatus;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
}

/** One run being executed: its identity, this execution's claim, and the timer as last read. */
export interface Execution {
  run: RunToExecute;
  ref: RunRef;
  owner: string;
  lease: Lease;
  cached: CachedTimer;
  /** True from the moment the run no longer holds its job (it waits for an app slot or its predecessor). */
  detached: boolean;
  /** This run holds its timer's in-flight slot (overlapPolicy skip or buffer_one). */
  holdsOverlap: boolean;
  /** The call went out (from then on the attempt counts, whatever happens). */
  sent: boolean;
  /**
   * Picked up ahead of its time with a reason not to call it that an edit before then may
   * undo (a calendar date taken off, the schedule or the status put back): judged again at its time.
   */
  judgeAtTime: boolean;
}

/** The `slice` of runs the compensator queues. */
export const COMPENSATOR = 'compensator';

/** A copy of the run another execution owns or finished: counted by where it was told, and left. */
export function duplicate(metrics: Metrics, stage: 'claim' | 'history' | 'fenced'): RunReport {
  metrics.duplicates.inc({ stage });
  return { verdict: 'duplicate' };
}
