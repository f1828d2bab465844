import { Worker } from 'bullmq';
import type { ConnectionLog } from '../../observability/connection-log.js';
import type { Logger } from '../../observability/logger.js';
import type { RedisClient } from '../../storage/redis/connection.js';
import type { Keys } from '../../storage/redis/keys.js';
import {
  EXECUTE_LATE_QUEUE,
  EXECUTE_QUEUE,
  type ExecuteJobData,
  KEEP_COMPLETED_BATCHES,
  KEEP_FAILED,
  runCountOf,
} from '../../storage/redis/queues.js';
import { IntakeLimit } from './admission/intake-limit.js';
import type { BatchReport } from './execute-job-processor.js';
import type { HandedOn, LaneJobRunner } from './lane-job-runner.js';
import type { RunReport } from './run-execution.js';

/**
 * Runs of the catch-up lane (`execute-late`) an executor holds at most: ~125 ms of work at
 * this box's ~4,000 calls a second, so a run due now waits behind no more than that.
 */
export const LATE_LANE_MAX_RUNS = 500;

type ExecuteWorker = Worker<ExecuteJobData, RunReport | BatchReport | HandedOn>;

export interface LaneWorkersOptions {
  connection: RedisClient;
  keys: Keys;
  runner: Pick<LaneJobRunner, 'run' | 'failed'>;
  /** EXECUTOR_CONCURRENCY, EXECUTOR_WORKERS, EXECUTOR_MAX_RUNS. */
  concurrency: number;
  workers: number;
  maxRuns: number;
  logger: Logger;
  /** Says a lost Redis once for the process; true when the error was that. */
  redisLog: Pick<ConnectionLog, 'report'>;
}

export interface LaneWorkers {
  onTime: ExecuteWorker[];
  late: ExecuteWorker[];
  all: ExecuteWorker[];
}

/**
 * The BullMQ workers of an executor's two lanes: EXECUTOR_WORKERS on `execute`, half as
 * many on `execute-late`. A BullMQ worker fetches its jobs one at a time (one round trip
 * each): several workers in one process fetch in parallel, so thousands of runs a second
 * reach the wheel in time. How many jobs each may hold follows the runs this process can
 * still take on (IntakeLimit).
 */
export function startLaneWorkers(o: LaneWorkersOptions): LaneWorkers {
  const perWorker = Math.ceil(o.concurrency / o.workers);
  const laneWorkers = (queue: string, count: number, maxRuns: number) => {
    const intake = new IntakeLimit(maxRuns, perWorker, count);
    const workers = Array.from(
      { length: count },
      (_, i): ExecuteWorker =>
        new Worker(
          queue,
          async (job, token) => {
            try {
              return await o.runner.run(queue, job, token);
            } finally {
              intake.done(i, runCountOf(job.data));
            }
          },
          {
            connection: o.connection,
            prefix: o.keys.bullPrefix(queue),
            concurrency: 1,
            // A dead executor's jobs come back within ~15 s (stalled check); their runs' leases
            // have lapsed by then, so the next executor claims them as the next attempt.
            lockDuration: 15_000,
            stalledInterval: 5_000,
            maxStalledCount: 10,
            // One stalled-job check per queue and process is enough: it scans every active job.
            skipStalledCheck: i > 0,
            removeOnComplete: KEEP_COMPLETED_BATCHES,
            removeOnFail: KEEP_FAILED,
          },
        ),
    );
    workers.forEach((worker, i) => {
      worker.on('active', (job) => intake.fetched(i, runCountOf(job.data)));
    });
    intake.attach(workers);
    return workers;
  };
  // The catch-up lane holds few runs here at a time: the runs due now, fetched from
  // `execute`, never wait behind more than a fraction of a second of its backlog.
  const late = laneWorkers(
    EXECUTE_LATE_QUEUE,
    Math.max(1, Math.floor(o.workers / 2)),
    Math.min(o.maxRuns, LATE_LANE_MAX_RUNS),
  );
  const onTime = laneWorkers(EXECUTE_QUEUE, o.workers, o.maxRuns);
  const all = [...onTime, ...late];
  const { logger } = o;
  for (const worker of all) {
    worker.on('error', (err) => {
      if (!o.redisLog.report(err)) logger.warn({ err: err.message }, 'execute worker error');
    });
    worker.on('failed', (job, err) => o.runner.failed(job, err));
  }
  return { onTime, late, all };
}
