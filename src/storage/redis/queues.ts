import { createHash } from 'node:crypto';
import { type DefaultJobOptions, Queue } from 'bullmq';
import type { AttemptAnswer } from '../../domain/attempt-answers.js';
import type { NotifyJobData } from '../../domain/failure-event.js';
import { taskKey } from '../../domain/plan/task-key.js';
import type { OverlapPolicy, RunTrigger } from '../../domain/timer.js';
import type { RedisClient } from './connection.js';
import type { Keys } from './keys.js';

/** BullMQ queues: slice jobs go to `trigger`, runs (alone or batched) to `execute`. */
export const TRIGGER_QUEUE = 'trigger';
export const EXECUTE_QUEUE = 'execute';
/**
 * The catch-up lane of `execute`: jobs an executor fetched from `execute` long after their
 * runs were due (they waited behind a backlog: belongsInCatchUpLane), the compensator's
 * re-queues and backfills. Worked beside `execute` with the time it leaves
 * (CatchUpThrottle), so a backlog here does not hold back the runs due now.
 */
export const EXECUTE_LATE_QUEUE = 'execute-late';
/** Failure notifications (a run ended failed or missed), retried with backoff. */
export const NOTIFY_QUEUE = 'notify';

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

/** A run as queued: which timer, when, and the timer version that planned it, when known. */
export interface QueuedRun {
  timerId: number;
  runAt: number;
  /** The timer version the run was planned for: an older cached copy is re-read, a newer timer may have superseded it. */
  version?: number | undefined;
  /**
   * A continuation of a run already attempted (a retry, or a run whose holder died):
   * the attempts made so far. The next is claimed as attempt afterAttempt + 1.
   */
  afterAttempt?: number | undefined;
  /** What made it, when not its schedule: a user's run now or retry, a backfill (sent as X-Xtimer-Trigger). */
  trigger?: Exclude<RunTrigger, 'schedule'> | undefined;
  /** A backfill's own overlap policy, when it has one (other runs follow their timer's). */
  overlapPolicy?: OverlapPolicy | undefined;
  /**
   * A retry's earlier answers (ANSWER_LIMITS bound them), carried to the attempt that
   * writes the run's outcome next, so the run inspector shows every attempt kept.
   */
  earlier?: AttemptAnswer[] | undefined;
}

/** Just the fields of a run a job carries (the caller's objects may hold more). */
function queued(run: QueuedRun): QueuedRun {
  const out: QueuedRun = { timerId: run.timerId, runAt: run.runAt };
  if (run.version !== undefined) out.version = run.version;
  if (run.afterAttempt !== undefined) out.afterAttempt = run.afterAttempt;
  if (run.trigger !== undefined) out.trigger = run.trigger;
  if (run.overlapPolicy !== undefined) out.overlapPolicy = run.overlapPolicy;
  if (run.earlier !== undefined && run.earlier.length > 0) out.earlier = run.earlier;
  return out;
}

/** One run to execute; the job id is its task key. */
export interface RunJobData extends QueuedRun {
  /** Where it came from: its slice (`minute_bucket`), or `planner`, `migrator`, `compensator`, `retry`, `withdrawn`. */
  slice: string;
}

/** Several runs of one slice window in one job; each run is still claimed, sent and recorded on its own. */
export interface RunBatchJobData {
  slice: string;
  runs: QueuedRun[];
}

export type ExecuteJobData = RunJobData | RunBatchJobData;

export interface ExecuteJob {
  name: string;
  data: ExecuteJobData;
  opts: { jobId: string; delay?: number };
}

/**
 * Runs per batch job at most. A BullMQ job costs ~0.35 ms of Redis and Node time (add,
 * fetch, finish): one job per run caps a 2-core box near 3,000 runs/s, a batch per
 * slice window does not.
 */
export const RUN_BATCH_MAX = 500;

export function isRunBatch(data: ExecuteJobData): data is RunBatchJobData {
  return 'runs' in data;
}

/** How many runs a job carries (without building them: asked for every job fetched). */
export function runCountOf(data: ExecuteJobData): number {
  return isRunBatch(data) ? data.runs.length : 1;
}

/** The runs a job carries, each with the slice it came from. */
export function runsOf(data: ExecuteJobData): RunJobData[] {
  return isRunBatch(data) ? data.runs.map((r) => ({ ...r, slice: data.slice })) : [data];
}

/**
 * One execute job per run: job id = task key, so a run fanned out twice is queued once;
 * `versioned`, the id names the run's plan version as well (executeJobs).
 */
export function runJob(run: QueuedRun, slice: string, versioned = false): ExecuteJob {
  const key = taskKey(run.timerId, run.runAt);
  return {
    name: key,
    data: { ...queued(run), slice },
    opts: { jobId: versioned ? `${key}_v${run.version ?? 0}` : key },
  };
}

/**
 * A job that carries a run on after an attempt or a hand-over: a retry after its
 * backoff (`delayMs`), a run given back at shutdown, one the compensator re-queues. Its id
 * names the attempt it is for, so it is queued once per attempt, and never collides with
 * a finished job of the same run that BullMQ still keeps.
 */
export function continuationJob(
  run: QueuedRun,
  reason: 'retry' | 'withdrawn' | 'compensator',
  delayMs = 0,
): ExecuteJob {
  const key = taskKey(run.timerId, run.runAt);
  const next = (run.afterAttempt ?? 0) + 1;
  return {
    name: key,
    data: { ...queued(run), slice: reason },
    opts: { jobId: `${key}_${reason}${next}`, ...(delayMs > 0 ? { delay: Math.round(delayMs) } : {}) },
  };
}

/**
 * The execute jobs for runs read together (a slice window, a catch-up): a lone run is
 * its own job, named by its task key; more go in batches of up to RUN_BATCH_MAX, named
 * `<slice> <HH:mm:ss>Z ×<n>` and identified by their content, so the same batch queued
 * twice is queued once. A run queued twice in different jobs is still called once: the
 * executor's claim lets one copy through. `versioned` (a change's imminent runs): the ids
 * name the runs' plan versions too, since BullMQ silently ignores an add under the id of a
 * job it keeps, and a disable then enable puts back a run whose first job has ended.
 */
export function executeJobs(runs: readonly QueuedRun[], slice: string, versioned = false): ExecuteJob[] {
  if (runs.length === 1) {
    const [r] = runs as [QueuedRun];
    return [runJob(r, slice, versioned)];
  }
  const jobs: ExecuteJob[] = [];
  for (let i = 0; i < runs.length; i += RUN_BATCH_MAX) {
    const chunk = runs.slice(i, i + RUN_BATCH_MAX);
    const digest = createHash('sha1')
      .update(
        chunk
          .map((r) =>
            versioned ? `${taskKey(r.timerId, r.runAt)}.${r.version ?? 0}` : taskKey(r.timerId, r.runAt),
          )
          .join(','),
      )
      .digest('hex')
      .slice(0, 16);
    const first = new Date(chunk[0]!.runAt).toISOString().slice(11, 19);
    jobs.push({
      name: `${slice} ${first}Z ×${chunk.length}`,
      data: { slice, runs: chunk.map(queued) },
      opts: { jobId: `batch_${slice.replace(/:/g, '-')}_${digest}` },
    });
  }
  return jobs;
}

/** Execute jobs per addBulk (each a run or a batch of runs). */
const FAN_OUT_CHUNK = 200;

/** Queues runs read together into `execute` as executeJobs makes them, FAN_OUT_CHUNK jobs per round trip. */
export async function fanOutRuns(
  execute: Queue<ExecuteJobData>,
  runs: readonly QueuedRun[],
  slice: string,
): Promise<void> {
  const jobs = executeJobs(runs, slice);
  for (let i = 0; i < jobs.length; i += FAN_OUT_CHUNK) {
    await execute.addBulk(jobs.slice(i, i + FAN_OUT_CHUNK));
  }
}

/**
 * Active jobs earliestQueuedDue reads at most (executors may hold thousands). Runs of an
 * unread one may pass for lost and be queued again: their claim lets only one call through.
 */
const ACTIVE_JOBS_READ = 1000;

/**
 * When the earliest scheduled run still in the execute lanes (`execute`, `execute-late`)
 * was due: of the job workers take next in each (a lane is worked in the order it was
 * filled: BullMQ pops the end this reads) and of the jobs workers hold (their runs wait
 * there for a permit, unclaimed). Null when the lanes hold none. Backfills and retries are
 * left out: their runs are past by design, or claimed already.
 */
export async function earliestQueuedDue(lanes: ReadonlyArray<Queue<ExecuteJobData>>): Promise<number | null> {
  const jobs = [];
  for (const lane of lanes) {
    jobs.push(...(await lane.getJobs(['wait'], 0, 0, true)));
    jobs.push(...(await lane.getJobs(['active'], 0, ACTIVE_JOBS_READ - 1)));
  }
  let earliest: number | null = null;
  for (const job of jobs) {
    if (!job || job.data.slice === 'retry') continue;
    for (const r of runsOf(job.data))
      if (r.trigger !== 'backfill' && (earliest === null || r.runAt < earliest)) earliest = r.runAt;
  }
  return earliest;
}

/** Kept long enough to answer "what happened to timer 42 at 10:05:03" on the board. */
export const KEEP_COMPLETED = { age: 3600, count: 20_000 } as const;
/**
 * An execute job is a batch of up to RUN_BATCH_MAX runs, kilobytes in Redis: 20,000 of them
 * took ~150 B a timer at a million timers, more than their slices. MySQL keeps every run's
 * outcome; the board keeps the last few minutes' batches.
 */
export const KEEP_COMPLETED_BATCHES = { age: 3600, count: 2_000 } as const;
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

/**
 * Adds each job, replacing one of the same id that has ended: BullMQ keeps ended jobs
 * for the board and silently ignores an add under their id, which would leave the run in
 * no queue at all. A job of that id still waiting, delayed or active is kept.
 */
export async function addReplacingEnded(
  queue: Queue<ExecuteJobData>,
  jobs: readonly ExecuteJob[],
): Promise<void> {
  for (const job of jobs) {
    const existing = await queue.getJob(job.opts.jobId);
    if (existing) {
      const state = await existing.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
      await existing.remove().catch(() => undefined);
    }
    await queue.add(job.name, job.data, job.opts);
  }
}

/**
 * Queues a job fetched from `execute` too late in `execute-late`, under the same name, data
 * and id: its runs stay queued once. An ended job of that id there is replaced: a run
 * withdrawn at shutdown twice in a row comes back under one id, late both times.
 */
export async function handOnLate(
  late: Queue<ExecuteJobData>,
  job: { name: string; data: ExecuteJobData; id?: string | undefined },
): Promise<void> {
  if (job.id === undefined) await late.add(job.name, job.data);
  else await addReplacingEnded(late, [{ name: job.name, data: job.data, opts: { jobId: job.id } }]);
}

/** Queues runs again, as the compensator does: each as a continuation job of its next attempt. */
export async function requeueRuns(execute: Queue<ExecuteJobData>, runs: readonly QueuedRun[]): Promise<void> {
  await addReplacingEnded(
    execute,
    runs.map((r) => continuationJob(r, 'compensator')),
  );
}

export interface Queues {
  trigger: Queue<SliceJobData>;
  execute: Queue<ExecuteJobData>;
  executeLate: Queue<ExecuteJobData>;
  notify: Queue<NotifyJobData>;
  close(): Promise<void>;
}

/**
 * An execute job that failed (Redis or MySQL unreachable for a moment: a failover) is
 * tried again this often, 1, 2 and 4 s later. Its runs that were settled are found done
 * by their claims, and those not sent had their claims undone; without the retry they
 * waited for the compensator's sweep, two minutes after their time.
 */
export const EXECUTE_ATTEMPTS = 4;

/** A notification is tried this often, with exponential backoff from a second (~4 min in all). */
export const NOTIFY_ATTEMPTS = 8;

export function createQueues(connection: RedisClient, keys: Keys): Queues {
  const trigger = new Queue<SliceJobData>(TRIGGER_QUEUE, {
    connection,
    prefix: keys.bullPrefix(TRIGGER_QUEUE),
    defaultJobOptions,
  });
  const executeLane = (name: string) =>
    new Queue<ExecuteJobData>(name, {
      connection,
      prefix: keys.bullPrefix(name),
      defaultJobOptions: {
        ...defaultJobOptions,
        removeOnComplete: KEEP_COMPLETED_BATCHES,
        attempts: EXECUTE_ATTEMPTS,
        backoff: { type: 'exponential', delay: 1000 },
      },
    });
  const execute = executeLane(EXECUTE_QUEUE);
  const executeLate = executeLane(EXECUTE_LATE_QUEUE);
  const notify = new Queue<NotifyJobData>(NOTIFY_QUEUE, {
    connection,
    prefix: keys.bullPrefix(NOTIFY_QUEUE),
    defaultJobOptions: {
      ...defaultJobOptions,
      attempts: NOTIFY_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
    },
  });
  return {
    trigger,
    execute,
    executeLate,
    notify,
    close: async () => {
      await Promise.all([trigger.close(), execute.close(), executeLate.close(), notify.close()]);
    },
  };
}
