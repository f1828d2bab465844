import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../../src/core.js';
import { minuteKey } from '../../../../src/domain/plan/slice.js';
import { SliceReader } from '../../../../src/services/slices/slice-reader.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { createTestCore, createTestStores, type TestStores } from '../../../helpers/stores.js';

/** A slice window read from MySQL while Redis has lost its data (no "slices intact" marker). */
let stores: TestStores;
let core: Core;
let tasks: TaskRepository;
const MINUTE_START = Date.parse('2030-01-01T10:00:00Z');

beforeAll(async () => {
  stores = await createTestStores('slicereader');
  core = createTestCore(stores);
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
});
afterAll(async () => {
  await core?.queues.close();
  await stores?.cleanup();
});

describe('while Redis has lost the slices', () => {
  it("reads each pending run in exactly one of the minute's buckets, however many were claimed", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => i + 1);
    await tasks.insertRuns(
      ids.map((timerId) => ({ timerId, app: 'a', runAt: MINUTE_START + 5000, version: 1 })),
    );
    await stores.redis.del(core.keys.slicesIntact());
    const reader = new SliceReader(core.redis, core.keys, core.slices, tasks, 2);
    // Claimed at count 2, then (the count raised while a bucket's job was claimed again) at 3.
    const seen: number[] = [];
    for (const bucket of [0, 1, 2]) {
      const read = await reader.read(minuteKey(MINUTE_START), bucket, MINUTE_START, MINUTE_START + 60_000);
      expect(read.source).toBe('mysql');
      seen.push(...read.runs.map((r) => r.timerId));
    }
    expect(seen.sort((a, b) => a - b)).toEqual(ids);
  });
});
