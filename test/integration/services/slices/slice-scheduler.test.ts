import { afterAll, describe, expect, it } from 'vitest';
import { minuteKey } from '../../../../src/domain/plan/slice.js';
import { createLogger } from '../../../../src/observability/logger.js';
import {
  SLICE_CLAIM_TTL_MS,
  SLICE_PENDING_MS,
  SliceScheduler,
} from '../../../../src/services/slices/slice-scheduler.js';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { createQueues, type Queues } from '../../../../src/storage/redis/queues.js';
import { SliceStore } from '../../../../src/storage/redis/runs/slice-store.js';
import { withScripts } from '../../../../src/storage/redis/scripts.js';
import { deleteKeys, eventually, REDIS_URL, uniqueName } from '../../../helpers/stores.js';

/**
 * The scheduler's claim of a slice against real Redis and BullMQ: a slice is locked for
 * its minute only once its trigger job is queued, so a scheduler that dies or fails in
 * between leaves the slice to the next tick within seconds (CI's kill-takeover: a SIGKILL
 * between the two left a minute's slices locked and unwalked for 70 s, and 8 s of runs of
 * every timer were recorded missed).
 */
const redis = withScripts(createRedis(REDIS_URL));
const name = uniqueName('slicesched');
const keys = createKeys(`${name}:`);
const queues = createQueues(redis, keys);
const slices = new SliceStore(redis, keys, { buckets: 2, maxBuckets: 2 });
let tokens = 0;

function scheduler(trigger: Queues['trigger']): SliceScheduler {
  return new SliceScheduler({
    redis,
    keys,
    slices,
    queues: { trigger },
    buckets: 2,
    prefetchMs: 0,
    owner: 'test',
    newToken: () => `t${++tokens}`,
    logger: createLogger('silent'),
  });
}

afterAll(async () => {
  await queues.close();
  await deleteKeys(redis, [`${name}:*`, `{${name}}:*`]);
  redis.disconnect();
});

describe('claiming a slice', () => {
  // Half past a minute: the previous and current minute, two buckets each.
  const now = Date.UTC(2030, 0, 1, 10, 0, 30);
  const lockOf = (minuteMs: number, bucket: number) => keys.sliceLock(minuteKey(minuteMs), bucket);

  it('locks it for its minute once its trigger job is queued', async () => {
    const claimed = await scheduler(queues.trigger).tick(now);
    expect(claimed).toHaveLength(4);
    const ttl = await redis.pttl(lockOf(Date.UTC(2030, 0, 1, 10, 0), 1));
    expect(ttl).toBeGreaterThan(SLICE_CLAIM_TTL_MS - 5000);
    expect(await queues.trigger.getJobCounts('waiting')).toEqual({ waiting: 4 });
  });

  it('keeps a slice whose pending claim lapsed while its job was being queued, rather than leave it to be walked again', async () => {
    const later = now + 4 * 60_000;
    // The enqueue outlasts SLICE_PENDING_MS: the pending claim is gone when it returns.
    const slow = Object.create(queues.trigger) as Queues['trigger'];
    slow.getJob = async (id: string) => {
      const [minute, bucket] = id.split('_');
      await redis.del(keys.sliceLock(minute!.replace(/-(\d\d)$/, ':$1'), Number(bucket)));
      return queues.trigger.getJob(id);
    };
    const claimed = await scheduler(slow).tick(later);
    expect(claimed).toHaveLength(4);
    const ttl = await redis.pttl(lockOf(Date.UTC(2030, 0, 1, 10, 4), 0));
    expect(ttl).toBeGreaterThan(SLICE_CLAIM_TTL_MS - 5000);
  });

  it('leaves a slice it could not queue to the next tick within SLICE_PENDING_MS, not 70 s later', async () => {
    const later = now + 2 * 60_000;
    const failing = {
      getJob: () => Promise.reject(new Error('Redis went away')),
    } as unknown as Queues['trigger'];
    expect(await scheduler(failing).tick(later)).toEqual([]);
    const lock = lockOf(Date.UTC(2030, 0, 1, 10, 2), 0);
    const ttl = await redis.pttl(lock);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(SLICE_PENDING_MS);
    // Another scheduler, healthy, claims the slices as soon as the pending claim lapses.
    const healthy = scheduler(queues.trigger);
    const claimed = await eventually(
      async () => {
        const got = await healthy.tick(later);
        return got.length > 0 && got;
      },
      'the slices claimed again',
      SLICE_PENDING_MS + 3000,
      250,
    );
    expect(claimed).toHaveLength(4);
  }, 15_000);
});
