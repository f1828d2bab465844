import { type Job, WaitingError } from 'bullmq';
import type { Logger } from '../../observability/logger.js';
import type { SliceJobData } from '../../storage/redis/queues.js';
import type { SliceLockKeeper } from './slice-lock-keeper.js';
import type { SliceWalker, WalkResult } from './slice-walker.js';

/** A slice job as the runner uses it (BullMQ's Job is one). */
export type SliceJob = Pick<Job<SliceJobData>, 'name' | 'data' | 'timestamp' | 'moveToWait'>;

export interface SliceJobRunnerDeps {
  walker: Pick<SliceWalker, 'walkOnce'>;
  locks: Pick<SliceLockKeeper, 'release'>;
  logger: Logger;
}

/**
 * One slice job as the trigger's worker runs it: the walk of its minute; a walk stopped
 * for shutdown gives the job straight back, a failed one lets go of the slice's lock.
 */
export class SliceJobRunner {
  constructor(private readonly d: SliceJobRunnerDeps) {}

  async run(job: SliceJob, token: string | undefined, stopping: AbortSignal): Promise<WalkResult> {
    const { walker, locks } = this.d;
    let result: WalkResult;
    try {
      result = await walker.walkOnce(job.data, job.timestamp, stopping);
    } catch (err) {
      // Its renewals may hold the lock past the scheduler's look at the minute: let go.
      await locks.release(job.data).catch(() => undefined);
      throw err;
    }
    if (result.kind === 'walked') return result;
    // Not done: give the slice straight back so another trigger continues it.
    await job.moveToWait(token);
    throw new WaitingError();
  }

  /** A worker's 'failed' event: another trigger takes the slice over. */
  failed(job: SliceJob | undefined, err: Error): void {
    const { logger } = this.d;
    if (job && !(err instanceof WaitingError))
      logger.error({ slice: job.name, err: err.message }, 'slice job failed; it will be taken over');
  }
}
