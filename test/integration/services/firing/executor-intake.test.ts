import { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { IntakeLimit } from '../../../../src/services/firing/admission/intake-limit.js';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import {
  createQueues,
  EXECUTE_QUEUE,
  type ExecuteJobData,
  executeJobs,
  runsOf,
} from '../../../../src/storage/redis/queues.js';
import { withScripts } from '../../../../src/storage/redis/scripts.js';
import { deleteKeys, eventually, REDIS_URL, uniqueName } from '../../../helpers/stores.js';

/**
 * An executor's intake against a real BullMQ worker: a worker fetches jobs in a
 * burst up to its concurrency before it starts any, so with a backlog queued it must not
 * be allowed to bring in more runs than the process can carry. Here each job is held
 * until released, as jobs whose runs wait for their due time are.
 */
const redis = withScripts(createRedis(REDIS_URL));
const name = uniqueName('intake');
const keys = createKeys(`${name}:`);
const queues = createQueues(redis, keys);

afterAll(async () => {
  await queues.close();
  await deleteKeys(redis, [`${name}:*`, `{${name}}:*`]);
  redis.disconnect();
});

describe('an executor worker with a backlog queued', () => {
  it('takes in about EXECUTOR_MAX_RUNS worth of jobs, not its concurrency, and the rest as jobs end', async () => {
    const at = Date.UTC(2026, 10, 24, 10, 0, 0);
    // 200 jobs of 100 runs; room for 1,000 runs; a concurrency cap of 200 jobs.
    for (let j = 0; j < 200; j++) {
      const runs = Array.from({ length: 100 }, (_, i) => ({ timerId: j * 100 + i + 1, runAt: at }));
      await queues.execute.addBulk(executeJobs(runs, `s${j}`));
    }
    const intake = new IntakeLimit(1000, 200, 1);
    const releases: Array<() => void> = [];
    let fetched = 0;
    const connection = createRedis(REDIS_URL);
    const worker = new Worker<ExecuteJobData>(
      EXECUTE_QUEUE,
      async (job) => {
        try {
          await new Promise<void>((r) => releases.push(r));
        } finally {
          intake.done(0, runsOf(job.data).length);
        }
      },
      { connection, prefix: keys.bullPrefix(EXECUTE_QUEUE), concurrency: 1 },
    );
    worker.on('active', (job) => {
      fetched++;
      intake.fetched(0, runsOf(job.data).length);
    });
    intake.attach([worker]);
    try {
      await eventually(() => releases.length >= 5, 'the first jobs held', 10_000, 20);
      // An observation window for what must not happen: a burst in progress would have
      // gone on to fetch up to 200 jobs by now.
      await new Promise((r) => setTimeout(r, 300));
      expect(fetched).toBeLessThanOrEqual(11);
      // Jobs done let the rest in, 1,000 runs' worth at a time, until all 200 were taken.
      await eventually(
        () => {
          for (const release of releases.splice(0)) release();
          return fetched === 200;
        },
        'every job taken in the end',
        20_000,
        20,
      );
    } finally {
      for (const release of releases.splice(0)) release();
      await worker.close();
      connection.disconnect();
    }
  });
});
