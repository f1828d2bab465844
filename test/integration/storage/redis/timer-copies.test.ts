import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { decodeTimerCopy, encodeTimerCopy, TimerCopies } from '../../../../src/storage/redis/timer-copies.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';
import { testTimer } from '../../../helpers/timers.js';

/** The copies executors fire by while MySQL is away: what they keep, and what they cost. */
let stores: TestStores;
let copies: TimerCopies;

beforeAll(async () => {
  stores = await createTestStores('copies');
  copies = new TimerCopies(stores.redis, createKeys(stores.config.prefix));
});
afterAll(async () => {
  await stores.cleanup();
});

describe('a timer copy', () => {
  it('keeps every field an executor reads when it fires a run', () => {
    const timer = testTimer({
      id: 7,
      status: 'inactive',
      misfirePolicy: 'skip',
      version: 4,
      plannedFrom: 1_900_000_000_000,
      finalRunAt: 1_900_000_100_000,
      endAt: 1_900_000_200_000,
      jitterMs: 500,
      notify: { url: 'https://hooks.example/notify', on: ['failed'] },
      autoPause: { afterConsecutiveFailures: 3 },
      skipDates: { '2030-12-25': ['holidays'] },
      labels: { team: 'billing' },
      description: 'left out of the copy',
    });
    const copy = decodeTimerCopy(encodeTimerCopy(timer));
    const { labels, description, createdAt, updatedAt, ...fired } = timer;
    expect(copy).toMatchObject(fired);
    expect(copy.labels).toEqual({});
  });

  it('is written with a time to live, read back, and a deleted timer leaves a tombstone', async () => {
    const timer = testTimer({ id: 11 });
    await copies.put([timer], 60_000);
    await copies.forget([12], 60_000);
    const [kept, deleted, none] = await copies.get([11, 12, 13]);
    expect(kept?.callback).toEqual(timer.callback);
    expect(deleted).toBeNull();
    expect(none).toBeUndefined();
    const ttl = await stores.redis.pttl(createKeys(stores.config.prefix).timerCopy(11));
    expect(ttl).toBeGreaterThan(50_000);
  });

  it('stays small: a typical timer takes under 300 bytes', () => {
    expect(encodeTimerCopy(testTimer()).length).toBeLessThan(300);
  });
});
