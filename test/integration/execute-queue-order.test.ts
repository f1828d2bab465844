import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/storage/redis/connection.js';
import { createKeys, type Keys } from '../../src/storage/redis/keys.js';
import {
  continuationJob,
  createQueues,
  EXECUTE_QUEUE,
  type ExecuteJob,
  executeJobs,
  type Queues,
  runsOf,
} from '../../src/storage/redis/queues.js';
import { withScripts } from '../../src/storage/redis/scripts.js';
import { deleteKeys, REDIS_URL, uniqueName } from '../helpers/stores.js';

/**
 * The order the executor takes runs in when more are queued than it can call (issue 12):
 * the freshest scheduled runs first, so that the service is on time again as soon as the
 * load drops, while a backlog that is late already waits behind them. Against real Redis
 * and BullMQ: the order is BullMQ's, given the options our jobs carry.
 */
const redis = withScripts(createRedis(REDIS_URL));
const name = uniqueName('queueorder');
let keys: Keys;
let queues: Queues;
let worker: Worker;

beforeAll(() => {
  keys = createKeys(`${name}:`);
  queues = createQueues(redis, keys);
  worker = new Worker(EXECUTE_QUEUE, null, { connection: redis, prefix: keys.bullPrefix(), autorun: false });
});

afterAll(async () => {
  await worker.close();
  await queues.close();
  await deleteKeys(redis, [`${name}:*`, `{${name}}:*`]);
  redis.disconnect();
});

const second = (s: number) => Date.UTC(2026, 10, 24, 10, 0, s);
const runsAt = (s: number, n = 2) =>
  Array.from({ length: n }, (_, i) => ({ timerId: i + 1, runAt: second(s) }));

async function add(jobs: ExecuteJob[]): Promise<void> {
  await queues.execute.addBulk(jobs);
}

/** The due seconds of the jobs as the executor would take them, until the queue is empty. */
async function takeAll(): Promise<string[]> {
  const taken: string[] = [];
  for (let i = 0; ; i++) {
    const job = await worker.getNextJob(`t${i}`, { block: false });
    if (!job) return taken;
    const [first] = runsOf(job.data);
    taken.push(`${job.data.slice}@${new Date(first!.runAt).getUTCSeconds()}`);
    await job.moveToCompleted('ok', `t${i}`, false);
  }
}

describe('the execute queue under a backlog', () => {
  it('hands out the freshest scheduled runs first, and a backlog that is late already after them', async () => {
    // A backlog: seconds 1-3 queued and not taken; then second 4's runs, and a run given back at shutdown.
    for (const s of [1, 2, 3]) await add(executeJobs(runsAt(s), 'slice'));
    await add(executeJobs(runsAt(4), 'slice'));
    expect(await takeAll()).toEqual(['slice@4', 'slice@3', 'slice@2', 'slice@1']);
  });

  it('puts a run handed back at shutdown before the backlog, and one the compensator queues again behind it', async () => {
    await add(executeJobs(runsAt(11), 'slice'));
    await add([continuationJob({ timerId: 9, runAt: second(10), afterAttempt: 1 }, 'compensator')]);
    await add([continuationJob({ timerId: 9, runAt: second(12) }, 'handback')]);
    expect(await takeAll()).toEqual(['handback@12', 'slice@11', 'compensator@10']);
  });

  it('keeps a backfill in run order', async () => {
    for (const s of [21, 22, 23]) await add(executeJobs(runsAt(s, 1), 'backfill', 'in-order'));
    expect(await takeAll()).toEqual(['backfill@21', 'backfill@22', 'backfill@23']);
  });
});
