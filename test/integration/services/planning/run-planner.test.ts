import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Core } from '../../../../src/core.js';
import { RunPlanner } from '../../../../src/services/planning/run-planner.js';
import { EXECUTE_QUEUE, type ExecuteJobData, runsOf } from '../../../../src/storage/redis/queues.js';
import { createTestCore, createTestStores, eventually, type TestStores } from '../../../helpers/stores.js';

/**
 * A change's imminent runs go straight into `execute`. A disable then an enable a second
 * before a run's time puts back a run whose first job the executor dropped and BullMQ
 * keeps: the enable's job must not be taken for that one.
 */
let stores: TestStores;
let core: Core;
let worker: Worker<ExecuteJobData>;
let connection: ReturnType<TestStores['redis']['duplicate']>;
const fetched: Array<{ timerId: number; version: number | undefined }> = [];

beforeAll(async () => {
  stores = await createTestStores('runplanner');
  core = createTestCore(stores);
  connection = stores.redis.duplicate();
  worker = new Worker<ExecuteJobData>(
    EXECUTE_QUEUE,
    async (job) => {
      for (const r of runsOf(job.data)) fetched.push({ timerId: r.timerId, version: r.version });
    },
    { connection, prefix: core.keys.bullPrefix(EXECUTE_QUEUE), removeOnComplete: { age: 3600 } },
  );
});

afterAll(async () => {
  await worker?.close();
  connection?.disconnect();
  await core?.queues.close();
  await stores?.cleanup();
});

describe("a change's imminent runs", () => {
  it('are those whose slice window the trigger read while they were placed, however long that took', async () => {
    const slow = Object.assign(Object.create(core.slices), {
      addRuns: async (...args: Parameters<Core['slices']['addRuns']>) => {
        await new Promise((r) => setTimeout(r, 1200));
        return core.slices.addRuns(...args);
      },
    }) as Core['slices'];
    const planner = new RunPlanner(slow, stores.config.migrateStepMinutes, stores.config.prereadMs, (jobs) =>
      core.queues.execute.addBulk(jobs),
    );
    const now = Date.now();
    // Due just past "now + preread + 1 s" as publish began: its window was read by the time it was placed.
    const run = { timerId: 20, app: 'a', runAt: now + stores.config.prereadMs + 1100, version: 1 };
    await planner.publish({ planned: [run], cancelled: [] }, now);
    await eventually(() => fetched.some((f) => f.timerId === 20), 'the run queued straight away');
  });

  it.each([
    ['a lone run', [7]],
    ['a batch of runs', [8, 9]],
  ])('are queued again when %s ended under the plan before (a disable, then an enable)', async (_, ids) => {
    const runAt = Date.now() + 1000;
    const runs = ids.map((timerId) => ({ timerId, app: 'a', runAt, version: 1 }));
    // Queued by the create (or the trigger, under the same task key for a lone run) and
    // fetched while the timer was disabled: dropped, and kept by BullMQ.
    await core.planner.publish({ planned: runs, cancelled: [] }, Date.now());
    await eventually(() => ids.every((id) => fetched.some((f) => f.timerId === id)), 'first jobs fetched');
    await core.planner.publish(
      { planned: runs.map((r) => ({ ...r, version: 3 })), cancelled: [] },
      Date.now(),
    );
    await eventually(
      () => ids.every((id) => fetched.some((f) => f.timerId === id && f.version === 3)),
      "the enable's runs fetched",
    );
  });
});
