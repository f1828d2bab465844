import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { taskKey } from '../../../../../src/domain/plan/task-key.js';
import { createKeys } from '../../../../../src/storage/redis/keys.js';
import { RunClaims } from '../../../../../src/storage/redis/runs/run-claims.js';
import { createTestStores, deleteKeys, type TestStores } from '../../../../helpers/stores.js';

/**
 * The claim scripts (claim-runs, renew-runs, finish-runs, back-off-run, release-run)
 * against real Redis, with the scripts' clock injected: leases lapse, are renewed and
 * fence late owners exactly when the clock says.
 */
let stores: TestStores;
let claims: RunClaims;
let clock = 0;
const T0 = Date.parse('2030-03-01T10:00:00Z');
const LEASE = 10_000;
let seq = 0;
let run = { key: '', runAt: 0 };

const claimKey = () => createKeys(stores.config.prefix).claim('2030-03-01', run.key);

beforeAll(async () => {
  stores = await createTestStores('claims');
  claims = new RunClaims(stores.redis, createKeys(stores.config.prefix), { now: () => clock });
});
beforeEach(async () => {
  clock = T0;
  const runAt = T0 + 1000 * ++seq;
  run = { key: taskKey(7, runAt), runAt };
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`]);
});
afterAll(async () => {
  await stores.cleanup();
});

describe('a claim', () => {
  it('gives the first owner attempt 1 and tells another owner the run is busy while the lease lasts', async () => {
    expect(await claims.claim(run, 'a', LEASE)).toMatchObject({
      outcome: 'claimed',
      attempt: 1,
      leaseUntil: T0 + LEASE,
    });
    clock = T0 + LEASE - 1;
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({
      outcome: 'busy',
      state: 'running',
      untilMs: T0 + LEASE,
    });
  });

  it('passes to another owner as the next attempt once the holder stopped renewing and the lease lapsed', async () => {
    await claims.claim(run, 'a', LEASE);
    await claims.markCalled(run, 'a', 1, clock + LEASE);
    clock = T0 + LEASE + 1;
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });

  it('stays with a holder that renews, however long its call takes', async () => {
    await claims.claim(run, 'a', LEASE);
    for (let beat = 1; beat <= 10; beat++) {
      clock = T0 + beat * 5000;
      expect(await claims.renew(run, 'a', 1, LEASE)).toBe('held');
    }
    clock += LEASE - 1;
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'busy' });
  });

  it('starts past the attempts MySQL knows of when Redis lost the record (minAttempt)', async () => {
    expect(await claims.claim(run, 'a', LEASE, 3)).toMatchObject({ outcome: 'claimed', attempt: 4 });
  });

  it('says done, with the outcome, once the run finished', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.finish(run, 'a', 1, 'succeeded')).toBe(true);
    expect(await claims.claim(run, 'b', LEASE)).toEqual({ outcome: 'done', attempt: 1, status: 'succeeded' });
  });
});

describe('a holder that has not called yet', () => {
  it('is taken over as the same attempt once it died: no call was made', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.peek([run])).toEqual([expect.objectContaining({ state: 'claimed', attempt: 1 })]);
    clock = T0 + 5000;
    expect(await claims.renew(run, 'a', 1, LEASE)).toBe('held');
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'busy', state: 'running' });
    expect(await claims.peek([run])).toEqual([expect.objectContaining({ state: 'claimed', attempt: 1 })]);
    clock = T0 + 5000 + LEASE + 1;
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'claimed', attempt: 1 });
  });

  it('is marked called as it sends: a takeover then makes the next attempt', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.markCalled(run, 'b', 1, clock + LEASE)).toBe(false);
    expect(await claims.markCalled(run, 'a', 1, clock + LEASE)).toBe(true);
    expect(await claims.peek([run])).toEqual([expect.objectContaining({ state: 'running', attempt: 1 })]);
    clock = T0 + LEASE + 1;
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });

  it('is marked only by its exact holder and attempt, keeping the lease and its expiry', async () => {
    await stores.redis.set(claimKey(), `claimed|11|${T0 + LEASE}|x:a`, 'PX', 60_000);
    for (const [owner, attempt] of [
      ['a', 11],
      [':a', 11],
      ['x:a', 1],
      ['x:a', 111],
      ['x', 11],
    ] as const)
      expect(await claims.markCalled(run, owner, attempt, clock + LEASE)).toBe(false);
    expect(await claims.peek([run])).toEqual([expect.objectContaining({ state: 'claimed' })]);
    expect(await claims.markCalled(run, 'x:a', 11, clock + LEASE)).toBe(true);
    expect(await stores.redis.get(claimKey())).toBe(`running|11|${T0 + LEASE}|x:a`);
    expect(await stores.redis.pttl(claimKey())).toBeGreaterThan(59_000);
    // Marked again (a continuation's second look): still its own, left as it is.
    expect(await claims.markCalled(run, 'x:a', 11, clock + LEASE)).toBe(true);
  });

  it('lets the holder call when Redis lost the record, and writes it again as running', async () => {
    expect(await claims.markCalled(run, 'a', 1, clock + LEASE)).toBe(true);
    expect(await claims.peek([run])).toEqual([
      expect.objectContaining({ state: 'running', attempt: 1, holder: 'a', untilMs: clock + LEASE }),
    ]);
    // Its holder dies in the call: the takeover knows a call went out.
    clock += LEASE + 1;
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });
});

describe('after Redis lost its data', () => {
  it('writes back the outcome of a run finished here that MySQL lacks, over a copy claimed but not calling', async () => {
    const other = { key: taskKey(8, run.runAt), runAt: run.runAt };
    const calling = { key: taskKey(9, run.runAt), runAt: run.runAt };
    // A copy fanned out again was claimed (not yet calling); another is being called.
    await claims.claim(run, 'copy', LEASE);
    await claims.claim(calling, 'caller', LEASE);
    await claims.markCalled(calling, 'caller', 1, clock + LEASE);
    const written = await claims.reassertFinished([
      { ...run, attempt: 1, status: 'succeeded' },
      { ...other, attempt: 1, status: 'failed' },
      { ...calling, attempt: 1, status: 'succeeded' },
    ]);
    expect(written).toBe(2);
    expect(await claims.claim(run, 'later', LEASE)).toMatchObject({ outcome: 'done', status: 'succeeded' });
    expect(await claims.claim(other, 'later', LEASE)).toMatchObject({ outcome: 'done', status: 'failed' });
    expect(await claims.renew(run, 'copy', 1, LEASE)).toBe('lost');
    expect(await claims.peek([calling])).toEqual([
      expect.objectContaining({ state: 'running', holder: 'caller' }),
    ]);
  });
});

describe('fencing by owner + attempt', () => {
  it('refuses the renewal of an owner whose lease lapsed and was taken over', async () => {
    await claims.claim(run, 'a', LEASE);
    await claims.markCalled(run, 'a', 1, clock + LEASE);
    clock = T0 + LEASE + 1;
    await claims.claim(run, 'b', LEASE);
    expect(await claims.renew(run, 'a', 1, LEASE)).toBe('lost');
    expect(await claims.renew(run, 'b', 2, LEASE)).toBe('held');
  });

  it('never lets a late owner overwrite the outcome the current owner recorded', async () => {
    await claims.claim(run, 'a', LEASE);
    await claims.markCalled(run, 'a', 1, clock + LEASE);
    clock = T0 + LEASE + 1;
    await claims.claim(run, 'b', LEASE);
    expect(await claims.finish(run, 'b', 2, 'succeeded')).toBe(true);
    expect(await claims.finish(run, 'a', 1, 'failed')).toBe(false);
    const [record] = await claims.peek([run]);
    expect(record).toMatchObject({ state: 'succeeded', attempt: 2, holder: 'b' });
  });

  it("marks the day's bloom filter, but makes none for a day older than a filter lives (a backfill's runs)", async () => {
    const keys = createKeys(stores.config.prefix);
    await claims.claim(run, 'a', LEASE);
    expect(await claims.finish(run, 'a', 1, 'succeeded')).toBe(true);
    expect(await stores.redis.exists(keys.bloom('2030-03-01'))).toBe(1);
    const old = { key: taskKey(7, T0 - 3 * 86_400_000), runAt: T0 - 3 * 86_400_000 };
    await claims.claim(old, 'a', LEASE);
    expect(await claims.finish(old, 'a', 1, 'succeeded')).toBe(true);
    expect(await stores.redis.exists(keys.bloom('2030-02-26'))).toBe(0);
    // Its record still fences a copy.
    expect(await claims.claim(old, 'b', LEASE)).toMatchObject({ outcome: 'done', status: 'succeeded' });
  });

  it('tells each first attempt of a batch of hundreds what the bloom filter knows: never ran, may have run, or cannot tell', async () => {
    const keys = createKeys(stores.config.prefix);
    const runs = Array.from({ length: 800 }, (_, i) => ({
      key: taskKey(1000 + i, run.runAt),
      runAt: run.runAt,
    }));
    const finished = runs.filter((_, i) => i % 2 === 0);
    await Promise.all(finished.map((r) => claims.claim(r, 'a', LEASE)));
    expect(await Promise.all(finished.map((r) => claims.finish(r, 'a', 1, 'succeeded')))).not.toContain(
      false,
    );
    // Their records gone (past their keep, or Redis lost them): only the filter remembers them.
    await stores.redis.del(...finished.map((r) => keys.claim('2030-03-01', r.key)));
    // Due before the day's filter was made (at T0): it cannot rule the run out.
    const older = { key: taskKey(5, T0 - 1000), runAt: T0 - 1000 };
    clock = run.runAt;
    const answers = await Promise.all([...runs, older].map((r) => claims.claim(r, 'b', LEASE)));
    const blooms = answers.map((a) => (a.outcome === 'claimed' ? a.bloom : a.outcome));
    expect(blooms.slice(0, 800)).toEqual(runs.map((_, i) => (i % 2 === 0 ? 'maybe' : 'no')));
    expect(blooms[800]).toBe('unknown');
  });

  it('asks the bloom filter nothing about a run claimed before its time: its claimer never needs the answer', async () => {
    const keys = createKeys(stores.config.prefix);
    const ahead = { key: taskKey(8, run.runAt), runAt: run.runAt };
    await claims.claim(ahead, 'a', LEASE);
    expect(await claims.finish(ahead, 'a', 1, 'succeeded')).toBe(true);
    await stores.redis.del(keys.claim('2030-03-01', ahead.key));
    // Not yet due (the clock is at T0): no answer, though the filter has its bits.
    expect(await claims.claim(ahead, 'b', LEASE)).toMatchObject({
      outcome: 'claimed',
      attempt: 1,
      bloom: null,
    });
    await stores.redis.del(keys.claim('2030-03-01', ahead.key));
    clock = ahead.runAt;
    expect(await claims.claim(ahead, 'c', LEASE)).toMatchObject({
      outcome: 'claimed',
      attempt: 1,
      bloom: 'maybe',
    });
  });

  it('refuses a finish from the right owner for the wrong attempt', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.finish(run, 'a', 2, 'succeeded')).toBe(false);
  });

  it('writes a record again for its holder after Redis lost it, so a copy finds the run taken', async () => {
    await claims.claim(run, 'a', LEASE);
    await stores.redis.del(claimKey());
    expect(await claims.renew(run, 'a', 1, LEASE)).toBe('reasserted');
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'busy' });
  });

  it('lets an owner that lost its record finish it (Redis lost data; MySQL fences by attempt)', async () => {
    await claims.claim(run, 'a', LEASE);
    await stores.redis.del(claimKey());
    expect(await claims.finish(run, 'a', 1, 'succeeded')).toBe(true);
  });
});

describe('a backoff', () => {
  it('holds no lease: the retry claims the next attempt once it has run out, and nobody earlier', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.backOff(run, 'a', 1, 30_000)).toBe(T0 + 30_000);
    clock = T0 + 28_000;
    expect(await claims.claim(run, 'retry', LEASE, 1)).toMatchObject({
      outcome: 'busy',
      state: 'backoff',
      untilMs: T0 + 30_000,
    });
    clock = T0 + 29_500; // within the slack for the retry job's clock
    expect(await claims.claim(run, 'retry', LEASE, 1)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });

  it('keeps its record through a Retry-After longer than a finished record is kept', async () => {
    await claims.claim(run, 'a', LEASE);
    await claims.backOff(run, 'a', 1, 10 * 60_000);
    expect(await stores.redis.pttl(claimKey())).toBeGreaterThan(10 * 60_000 + claims.keepMs - 5000);
  });

  it('is refused to an owner that no longer holds the attempt', async () => {
    await claims.claim(run, 'a', LEASE);
    clock = T0 + LEASE + 1;
    await claims.claim(run, 'b', LEASE);
    expect(await claims.backOff(run, 'a', 1, 1000)).toBeNull();
  });
});

describe('a release', () => {
  it('undoes an attempt never made, so the next owner claims the same number', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.release(run, 'a', 1, { attemptMade: false })).toBe(true);
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'claimed', attempt: 1 });
  });

  it('after an attempt made, ends the lease at once and the next owner claims the next attempt', async () => {
    await claims.claim(run, 'a', LEASE);
    await claims.release(run, 'a', 1, { attemptMade: true });
    expect(await claims.claim(run, 'b', LEASE)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });

  it('is refused to an owner that does not hold the run', async () => {
    await claims.claim(run, 'a', LEASE);
    expect(await claims.release(run, 'b', 1, { attemptMade: false })).toBe(false);
  });
});
