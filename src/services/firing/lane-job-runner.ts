import { type Job, WaitingError } from 'bullmq';
import type { Logger } from '../../observability/logger.js';
import { EXECUTE_LATE_QUEUE, EXECUTE_QUEUE, type ExecuteJobData } from '../../storage/redis/queues.js';
import { belongsInCatchUpLane } from './admission/execute-lanes.js';
import type { BatchReport, ExecuteJobProcessor } from './execute-job-processor.js';
import type { RunReport } from './run-execution.js';

/** What a job fetched from `execute` too late reports: it went on to the catch-up lane. */
export interface HandedOn {
  handedOnTo: string;
}

/** An execute job as the runner uses it (BullMQ's Job is one). */
export type LaneJob = Pick<
  Job<ExecuteJobData>,
  'name' | 'data' | 'id' | 'opts' | 'attemptsMade' | 'moveToWait'
>;

export interface LaneJobRunnerDeps {
  processor: Pick<ExecuteJobProcessor, 'process'>;
  /** Queues the job in `execute-late` under the same name, data and id: its runs stay queued once. */
  handOn(job: LaneJob): Promise<unknown>;
  logger: Logger;
  now(): number;
}

/**
 * One execute job as a lane's worker runs it: a job fetched from `execute` too late goes
 * on to the catch-up lane (belongsInCatchUpLane), any other through the processor; a job
 * withdrawn at shutdown goes back to wait. Each failure is logged once.
 */
export class LaneJobRunner {
  private readonly logged = new WeakSet<Error>();

  constructor(private readonly d: LaneJobRunnerDeps) {}

  async run(queue: string, job: LaneJob, token?: string): Promise<RunReport | BatchReport | HandedOn> {
    const { d } = this;
    try {
      if (queue === EXECUTE_QUEUE && belongsInCatchUpLane(job.data, d.now())) {
        await d.handOn(job);
        return { handedOnTo: EXECUTE_LATE_QUEUE };
      }
      const result = await d.processor.process(job.data);
      if (result.kind === 'done') return result.report;
      await job.moveToWait(token);
      throw new WaitingError();
    } catch (err) {
      // Said here: BullMQ emits no 'failed' when the job's lock lapsed meanwhile.
      // While it runs, attemptsMade counts the attempts before this one.
      if (!(err instanceof WaitingError)) this.logFailure(job, job.attemptsMade + 1, err as Error);
      throw err;
    }
  }

  /** A worker's 'failed' event: failures the processor did not throw (a job that stalled too often). */
  failed(job: LaneJob | undefined, err: Error): void {
    if (job && !(err instanceof WaitingError) && !this.logged.has(err))
      this.logFailure(job, job.attemptsMade, err);
  }

  private logFailure(job: LaneJob, attempt: number, err: Error): void {
    const { logger } = this.d;
    this.logged.add(err);
    const retried = attempt < (job.opts.attempts ?? 1);
    logger[retried ? 'warn' : 'error'](
      { job: job.name, attempt, err },
      retried ? 'execute job failed; it is tried again' : 'execute job failed',
    );
  }
}
