import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Timer } from '../../../../src/domain/timer.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { decodeTimerCopy, encodeTimerCopy, TimerCopies } from '../../../../src/storage/redis/timer-copies.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';
import { testTimer } from '../../../helpers/timers.js';

/** The copies executors fire by while MySQL is away: what they keep, and what they cost. */
let stores: TestStores;
let copies: TimerCopies;
const keys = () => createKeys(stores.config.prefix);

beforeAll(async () => {
  stores = await createTestStores('copies');
  copies = new TimerCopies(stores.redis, keys());
});
afterAll(async () => {
  await stores.cleanup();
});

/** Every field a copy keeps set away from its usual value, so leaving one out cannot pass unseen. */
function unusualTimer(): Timer {
  return testTimer({
    id: 7,
    app: 'payroll',
    name: 'close the books',
    cron: null,
    at: null,
    everyMs: 90_000,
    offsetMs: 1500,
    jitterMs: 500,
    timezone: 'Europe/Paris',
    callback: {
      url: 'https://hooks.example/close',
      method: 'PUT',
      headers: { 'x-team': 'billing' },
      body: '{"ledger":1}',
      timeoutMs: 12_000,
    },
    retry: { maxAttempts: 4, backoffMs: 2500 },
    misfirePolicy: 'skip',
    misfireThresholdMs: 5000,
    startAt: 1_900_000_000_000,
    endAt: 1_900_000_200_000,
    maxRuns: 30,
    overlapPolicy: 'buffer_one',
    notify: { url: 'https://hooks.example/notify', on: ['failed'] },
    status: 'inactive',
    autoPause: { afterConsecutiveFailures: 3 },
    skipDates: { '2030-12-25': ['holidays'] },
    version: 4,
    plannedFrom: 1_900_000_000_000,
    finalRunAt: 1_900_000_100_000,
    labels: { team: 'billing' },
    description: 'left out of the copy',
    skipCalendars: ['holidays'],
    pausedNote: 'left out',
    failureStreak: 2,
    runsPlanned: 9,
  });
}

/** What a copy cannot give back: what no executor reads. */
const notKept = {
  labels: {},
  description: null,
  compatCron: null,
  pausedNote: null,
  pausedAt: null,
  pausedUntil: null,
  failureStreak: 0,
  runsPlanned: 0,
  skipCalendars: [],
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

describe('a timer copy', () => {
  it('keeps every field an executor reads when it fires a run, none at its usual value', () => {
    const timer = unusualTimer();
    expect(decodeTimerCopy(timer.id, encodeTimerCopy(timer))).toEqual({ ...timer, ...notKept });
  });

  it('gives back the usual values it leaves out', () => {
    const timer = testTimer({ id: 8, retry: { maxAttempts: 1, backoffMs: 0 }, version: 2 });
    expect(decodeTimerCopy(timer.id, encodeTimerCopy(timer))).toEqual({ ...timer, ...notKept });
  });

  it('is written with a time to live, read back, and a deleted timer leaves a tombstone', async () => {
    const timer = unusualTimer();
    await copies.put([{ ...timer, id: 11 }], 60_000);
    await copies.forget([12], 60_000);
    const [kept, deleted, none] = await copies.get([11, 12, 13]);
    expect(kept).toEqual({ ...timer, ...notKept, id: 11 });
    expect(deleted).toBeNull();
    expect(none).toBeUndefined();
    const ttl = await stores.redis.pttl(keys().timerCopy(11));
    expect(ttl).toBeGreaterThan(50_000);
  });

  it('is never put back over a newer version, nor over a tombstone', async () => {
    // A planner that read the timers before a change committed writes its copies after it.
    await copies.put([testTimer({ id: 31, version: 5, skipDates: { '2030-01-01': ['closed'] } })], 60_000);
    await copies.put([testTimer({ id: 31, version: 4 })], 60_000);
    await copies.forget([32], 60_000);
    await copies.put([testTimer({ id: 32, version: 9 })], 60_000);
    // The same version again (a later window of the same plan) is written, and lives on.
    await copies.put([testTimer({ id: 33, version: 2 })], 1000);
    await copies.put([testTimer({ id: 33, version: 2, finalRunAt: 1_900_000_000_000 })], 60_000);
    const [newer, deleted, again] = await copies.get([31, 32, 33]);
    expect(newer).toMatchObject({ version: 5, skipDates: { '2030-01-01': ['closed'] } });
    expect(deleted).toBeNull();
    expect(again).toMatchObject({ version: 2, finalRunAt: 1_900_000_000_000 });
    expect(await stores.redis.pttl(keys().timerCopy(33))).toBeGreaterThan(50_000);
  });

  it('reads a copy the previous release wrote, and leaves its tombstone where that release reads', async () => {
    const { labels, description, createdAt, updatedAt, ...previous } = testTimer({ id: 21, version: 3 });
    await stores.redis.set(keys().legacyTimerCopy(21), JSON.stringify(previous), 'PX', 60_000);
    await stores.redis.set(keys().legacyTimerCopy(22), JSON.stringify({ ...previous, id: 22 }), 'PX', 60_000);
    await copies.put([testTimer({ id: 22, version: 1 })], 60_000);
    await copies.forget([23], 60_000);
    const [legacy, newer, deleted] = await copies.get([21, 22, 23]);
    expect(legacy?.callback).toEqual(previous.callback);
    expect(legacy?.version).toBe(3);
    // The previous release wrote a newer plan after this one: the newer version is read.
    expect(newer?.version).toBe(3);
    expect(deleted).toBeNull();
    expect(await stores.redis.get(keys().legacyTimerCopy(23))).toBe('deleted');
  });

  it('stays small: a typical timer takes under half its JSON', () => {
    const typical = testTimer({
      app: 'billing-eu',
      name: 'nightly-invoices',
      cron: 'H H * * *',
      callback: {
        url: 'https://billing.example.com/hooks/xtimer',
        method: 'POST',
        headers: {},
        body: null,
        timeoutMs: 5000,
      },
      retry: { maxAttempts: 1, backoffMs: 0 },
      plannedFrom: 1_900_000_000_000,
    });
    // 129 bytes, where the timer's JSON less what a copy leaves out took ~290.
    expect(encodeTimerCopy(typical).length).toBeLessThan(140);
    expect(encodeTimerCopy(typical).length).toBeLessThan(JSON.stringify(typical).length / 2);
  });
});
