import { type DefaultJobOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { taskKey } from '../../domain/task-key.js';
import type { Keys } from './keys.js';

/** BullMQ queues (SPEC §2): slice jobs go to `trigger`, one job per run to `execute`. */
export const TRIGGER_QUEUE = 'trigger';
export const EXECUTE_QUEUE = 'execute';

/** A slice to walk: one (minute, bucket). */
export interface SliceJobData {
  /** `YYYY-MM-DDTHH:mm` (UTC). */
  minute: string;
  bucket: number;
  /** The minute's bucket count when claimed (the MySQL fallback selects `timer_id % count = bucket`). */
  bucketCount: number;
  /** The slice lock's holder token; the trigger acks with it. */
  token: string;
  /** Which scheduler claimed it (host:pid), for the dashboard. */
  owner: string;
  claimedAt: number;
}

/** One run to execute; the job id is its task key. */
export interface RunJobData {
  timerId: number;
  runAt: number;
  /** The slice it came from (`minute_bucket`, `planner` or `compensator`). */
  slice: string;
  /** The timer version that planned it, when known: an older cached copy is re-read. */
  version?: number;
}

/** One execute job per run: job id = task key, so a run fanned out twice is queued once. */
export function runJob(timerId: number, runAt: number, slice: string, version?: number) {
  const key = taskKey(timerId, runAt);
  const data: RunJobData =
    version === undefined ? { timerId, runAt, slice } : { timerId, runAt, slice, version };
  return { name: key, data, opts: { jobId: key } };
}

/** Kept long enough to answer "what happened to timer 42 at 10:05:03" on the board. */
export const KEEP_COMPLETED = { age: 3600, count: 20_000 } as const;
export const KEEP_FAILED = { age: 7 * 24 * 3600, count: 20_000 } as const;

const defaultJobOptions: DefaultJobOptions = {
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
  attempts: 1,
};

/**
 * BullMQ job ids may not contain ':', so a slice job's id writes the minute
 * `YYYY-MM-DDTHH-mm`; its name is the slice key itself.
 */
export function sliceJobId(minute: string, bucket: number): string {
  return `${minute.replace(':', '-')}_${bucket}`;
}

export interface Queues {
  trigger: Queue<SliceJobData>;
  execute: Queue<RunJobData>;
  close(): Promise<void>;
}

export function createQueues(connection: Redis, keys: Keys): Queues {
  const prefix = keys.bullPrefix();
  const trigger = new Queue<SliceJobData>(TRIGGER_QUEUE, { connection, prefix, defaultJobOptions });
  const execute = new Queue<RunJobData>(EXECUTE_QUEUE, { connection, prefix, defaultJobOptions });
  return {
    trigger,
    execute,
    close: async () => {
      await Promise.all([trigger.close(), execute.close()]);
    },
  };
}
