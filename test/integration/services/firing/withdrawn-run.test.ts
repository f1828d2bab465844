import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import {
  addReplacingEnded,
  continuationJob,
  createQueues,
  EXECUTE_QUEUE,
  type ExecuteJobData,
  type Queues,
} from '../../../../src/storage/redis/queues.js';
import { createTestStores, eventually, type TestStores } from '../../../helpers/stores.js';

/**
 * A run withdrawn at shutdown has its attempt undone, so every withdrawal of it names
 * the same job id. BullMQ keeps a completed job an hour and ignores an add under its id:
 * the second restart in a row would leave the run in no queue.
 */
let stores: TestStores;
let queues: Queues;
let worker: Worker<ExecuteJobData>;
let connection: ReturnType<TestStores['redis']['duplicate']>;
const fetched: string[] = [];

beforeAll(async () => {
  stores = await createTestStores('withdrawn');
  const keys = createKeys(stores.config.prefix);
  queues = createQueues(stores.redis, keys);
  connection = stores.redis.duplicate();
  worker = new Worker<ExecuteJobData>(
    EXECUTE_QUEUE,
    async (job) => {
      fetched.push(job.id ?? '');
    },
    { connection, prefix: keys.bullPrefix(EXECUTE_QUEUE), removeOnComplete: { age: 3600 } },
  );
});

afterAll(async () => {
  await worker?.close();
  connection?.disconnect();
  await queues?.close();
  await stores?.cleanup();
});

describe('a run withdrawn several times in a row', () => {
  it('is queued again every time, under the same job id', async () => {
    const run = { timerId: 7, runAt: Date.parse('2030-01-01T00:00:00Z'), version: 1 };
    for (let restart = 1; restart <= 4; restart++) {
      await addReplacingEnded(queues.execute, [continuationJob(run, 'withdrawn')]);
      await eventually(() => fetched.length === restart, `withdrawal ${restart} fetched`, 10_000);
    }
    expect(fetched).toEqual(Array(4).fill('7_1893456000000_withdrawn1'));
  });

  it('keeps a job of that id that still waits', async () => {
    await worker.pause();
    const run = { timerId: 8, runAt: Date.parse('2030-01-01T00:00:00Z'), version: 1 };
    await addReplacingEnded(queues.execute, [continuationJob(run, 'withdrawn')]);
    await addReplacingEnded(queues.execute, [continuationJob(run, 'withdrawn')]);
    expect(await queues.execute.getWaitingCount()).toBe(1);
    worker.resume();
  });
});
