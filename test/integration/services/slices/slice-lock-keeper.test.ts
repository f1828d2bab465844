import { afterAll, describe, expect, it } from 'vitest';
import { SLICE_ACK_TTL_MS, SliceLockKeeper } from '../../../../src/services/slices/slice-lock-keeper.js';
import { SLICE_CLAIM_TTL_MS } from '../../../../src/services/slices/slice-scheduler.js';
import { createRedis } from '../../../../src/storage/redis/connection.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { createQueues, type SliceJobData, sliceJobId } from '../../../../src/storage/redis/queues.js';
import { RedisLock } from '../../../../src/storage/redis/redis-lock.js';
import { withScripts } from '../../../../src/storage/redis/scripts.js';
import { deleteKeys, REDIS_URL, uniqueName } from '../../../helpers/stores.js';

/**
 * A trigger's hold, ack and release of a slice lock against real Redis and BullMQ: each
 * step goes by the token the slice's job holds now (a re-claim gives the job a new one),
 * and a lock is taken back only while the job still exists.
 */
const redis = withScripts(createRedis(REDIS_URL));
const name = uniqueName('slicelock');
const keys = createKeys(`${name}:`);
const queues = createQueues(redis, keys);
const keeper = new SliceLockKeeper(new RedisLock(redis), keys, queues.trigger);
let minutes = 0;

afterAll(async () => {
  await queues.close();
  await deleteKeys(redis, [`${name}:*`, `{${name}}:*`]);
  redis.disconnect();
});

/** A slice claimed by `token` (its lock taken for 5 s), with its job queued unless `queued` is false. */
async function claimed(token: string, queued = true): Promise<{ data: SliceJobData; lock: string }> {
  const minute = `2030-01-01T10:${String(minutes++).padStart(2, '0')}`;
  const data: SliceJobData = { minute, bucket: 0, bucketCount: 1, token, owner: 'test', claimedAt: 0 };
  const lock = keys.sliceLock(minute, 0);
  await redis.set(lock, token, 'PX', 5000);
  if (queued) await queues.trigger.add(`${minute}_0`, data, { jobId: sliceJobId(minute, 0) });
  return { data, lock };
}

describe('a slice lock kept by its trigger', () => {
  it('is held for SLICE_CLAIM_TTL_MS while walked and SLICE_ACK_TTL_MS once acked', async () => {
    const { data, lock } = await claimed('t1');
    expect(await keeper.hold(data)).toBe(true);
    expect(await redis.pttl(lock)).toBeGreaterThan(SLICE_CLAIM_TTL_MS - 5000);
    expect(await keeper.ack(data)).toBe(true);
    expect(await redis.pttl(lock)).toBeGreaterThan(SLICE_ACK_TTL_MS - 5000);
  });

  it('goes by the token its job holds now, after the scheduler re-claimed the slice', async () => {
    const { data, lock } = await claimed('old');
    // The re-claim: a new token in the lock and in the job, while this walk holds the old data.
    await redis.set(lock, 'new', 'PX', 5000);
    const job = await queues.trigger.getJob(sliceJobId(data.minute, 0));
    await job!.updateData({ ...data, token: 'new' });
    expect(await keeper.ack(data)).toBe(true);
    expect(await redis.get(lock)).toBe('new');
    expect(await redis.pttl(lock)).toBeGreaterThan(SLICE_ACK_TTL_MS - 5000);
  });

  it('is taken back when it lapsed during the walk and no one else took it', async () => {
    const { data, lock } = await claimed('t2');
    await redis.del(lock);
    expect(await keeper.hold(data)).toBe(true);
    expect(await redis.get(lock)).toBe('t2');
  });

  it('is left to another claim that holds it', async () => {
    const { data, lock } = await claimed('mine');
    await redis.set(lock, 'theirs', 'PX', 60_000);
    expect(await keeper.ack(data)).toBe(false);
    expect(await redis.get(lock)).toBe('theirs');
  });

  it('is not taken back once its job is gone with Redis data: the slice is claimed again from MySQL', async () => {
    const { data, lock } = await claimed('t3', false);
    expect(await keeper.hold(data)).toBe(true);
    await redis.del(lock);
    expect(await keeper.ack(data)).toBe(false);
    expect(await redis.exists(lock)).toBe(0);
  });

  it('is released after a failed walk, by the token its job holds now, and only by it', async () => {
    const { data, lock } = await claimed('t4');
    await keeper.release(data);
    expect(await redis.exists(lock)).toBe(0);
    const other = await claimed('t5');
    await redis.set(other.lock, 'someone-else', 'PX', 60_000);
    await keeper.release(other.data);
    expect(await redis.get(other.lock)).toBe('someone-else');
  });
});
