import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { LANE_BEHIND_MS } from '../../../../src/services/firing/admission/execute-lanes.js';
import { LaneJobRunner } from '../../../../src/services/firing/lane-job-runner.js';
import { startLaneWorkers } from '../../../../src/services/firing/lane-workers.js';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import {
  addReplacingEnded,
  continuationJob,
  createQueues,
  type ExecuteJobData,
  handOnLate,
  runJob,
} from '../../../../src/storage/redis/queues.js';
import { withScripts } from '../../../../src/storage/redis/scripts.js';
import { deleteKeys, eventually, REDIS_URL, uniqueName } from '../../../helpers/stores.js';

/**
 * An executor's lane workers against real BullMQ queues: a run fetched from `execute` too
 * late is run from `execute-late`, under the same job id (queued once), and one on time
 * is run where it is.
 */
const redis = withScripts(createRedis(REDIS_URL));
const name = uniqueName('lanes');
const keys = createKeys(`${name}:`);
const queues = createQueues(redis, keys);
const connection = createRedis(REDIS_URL);

afterAll(async () => {
  await queues.close();
  await deleteKeys(redis, [`${name}:*`, `{${name}}:*`]);
  connection.disconnect();
  redis.disconnect();
});

/** Lane workers whose runner hands each run to `process` and late jobs on by handOnLate. */
function lanesProcessing(process: (data: ExecuteJobData) => void) {
  const runner = new LaneJobRunner({
    processor: {
      process: async (data) => {
        process(data);
        return { kind: 'done', report: { verdict: 'succeeded' } };
      },
    },
    handOn: (job) => handOnLate(queues.executeLate, job),
    logger: createLogger('silent'),
    now: Date.now,
  });
  return startLaneWorkers({
    connection,
    keys,
    runner,
    concurrency: 4,
    workers: 2,
    maxRuns: 100,
    logger: createLogger('silent'),
    redisLog: { report: () => false },
  });
}

describe("an executor's lane workers", () => {
  it('run a late job from the catch-up lane under its id, and an on-time one from `execute`', async () => {
    const now = Date.now();
    const processed: ExecuteJobData[] = [];
    const late = runJob({ timerId: 1, runAt: now - LANE_BEHIND_MS - 5000 }, 's');
    const onTime = runJob({ timerId: 2, runAt: now + 60_000 }, 's');
    await queues.execute.addBulk([late, onTime]);
    const lanes = lanesProcessing((data) => processed.push(data));
    try {
      expect(lanes.onTime).toHaveLength(2);
      expect(lanes.late).toHaveLength(1);
      const completed = async (queue: typeof queues.execute, id: string) =>
        (await (await queue.getJob(id))?.getState()) === 'completed';
      await eventually(
        async () =>
          (await completed(queues.execute, late.opts.jobId)) &&
          (await completed(queues.executeLate, late.opts.jobId)) &&
          (await completed(queues.execute, onTime.opts.jobId)),
        'every job completed',
        10_000,
        20,
      );
      expect(processed.map((d) => ('timerId' in d ? d.timerId : 0)).sort()).toEqual([1, 2]);
      const handedOn = await queues.execute.getJob(late.opts.jobId);
      expect(handedOn?.returnvalue).toEqual({ handedOnTo: 'execute-late' });
      expect(await queues.executeLate.getJob(onTime.opts.jobId)).toBeUndefined();
      expect((await queues.execute.getJob(onTime.opts.jobId))?.returnvalue).toEqual({ verdict: 'succeeded' });
    } finally {
      await Promise.all(lanes.all.map((w) => w.close()));
    }
  });

  it('run a late job again when it comes back under the id of one the catch-up lane ran', async () => {
    // A run withdrawn at shutdown, late, twice in a row (a rolling deploy): its attempt
    // undone, both withdrawals name one job id, and the first ended in the catch-up lane.
    const processed: string[] = [];
    const lanes = lanesProcessing(() => processed.push('run'));
    try {
      const run = { timerId: 3, runAt: Date.now() - LANE_BEHIND_MS - 5000, version: 1 };
      for (let withdrawal = 1; withdrawal <= 2; withdrawal++) {
        await addReplacingEnded(queues.execute, [continuationJob(run, 'withdrawn')]);
        await eventually(() => processed.length === withdrawal, `withdrawal ${withdrawal} run`, 10_000, 20);
      }
    } finally {
      await Promise.all(lanes.all.map((w) => w.close()));
    }
  });
});
