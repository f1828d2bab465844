import { describe, expect, it } from 'vitest';
import { MINUTE, minuteKey } from '../../src/domain/slice.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import type { SliceRunRef, WindowRead } from '../../src/services/slice-reader.js';
import { SliceWalker } from '../../src/services/slice-walker.js';
import type { SliceJobData } from '../../src/storage/redis/queues.js';

const MINUTE_START = Date.UTC(2026, 10, 23, 18, 0, 0);
const PREREAD_MS = 200;

const job: SliceJobData = {
  minute: minuteKey(MINUTE_START),
  bucket: 0,
  bucketCount: 1,
  token: 't',
  owner: 'test',
  claimedAt: MINUTE_START,
};

/**
 * A walker over `runs` with a clock that moves only when the walker sleeps; each fan-out
 * is recorded with the time it happened.
 */
function walkerOver(
  runs: SliceRunRef[],
  options: { startAt?: number; failReads?: number; ack?: boolean; source?: WindowRead['source'] } = {},
) {
  let clock = options.startAt ?? MINUTE_START - 5000;
  let failReads = options.failReads ?? 0;
  const fanOuts: { at: number; runAts: number[] }[] = [];
  const reads: [number, number][] = [];
  let acks = 0;
  const walker = new SliceWalker({
    reader: {
      read: async (_minute, _bucket, _count, from, to) => {
        reads.push([from, to]);
        if (failReads-- > 0) throw new Error('redis timeout');
        return {
          runs: runs.filter((r) => r.runAt >= from && r.runAt < to),
          source: options.source ?? 'redis',
        };
      },
    },
    fanOut: async (batch) => {
      fanOuts.push({ at: clock, runAts: batch.map((r) => r.runAt) });
    },
    ack: async () => {
      acks++;
      return options.ack ?? true;
    },
    metrics: new Metrics(),
    prereadMs: PREREAD_MS,
    logger: createLogger('silent'),
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  return { walker, fanOuts, reads, acks: () => acks };
}

const run = (runAt: number): SliceRunRef => ({ timerId: 1, runAt, version: 1 });

describe('walking a slice on time', () => {
  it('fans each run out PREREAD_MS before the start of its 1 s window, never later', async () => {
    const runAts = [MINUTE_START, MINUTE_START + 1500, MINUTE_START + 59_999];
    const { walker, fanOuts } = walkerOver(runAts.map(run));
    const result = await walker.walk(job, new AbortController().signal);
    expect(result).toMatchObject({ kind: 'walked', runs: 3, acked: true });
    expect(fanOuts.flatMap((f) => f.runAts)).toEqual(runAts);
    for (const f of fanOuts) {
      const windowStart = Math.floor(Math.min(...f.runAts) / 1000) * 1000;
      expect(f.at).toBeLessThanOrEqual(windowStart - PREREAD_MS);
    }
  });

  it('reads the whole minute in 1 s windows, each once, and acks it at the end', async () => {
    const { walker, reads } = walkerOver([]);
    const result = await walker.walk(job, new AbortController().signal);
    expect(reads).toHaveLength(60);
    expect(reads[0]).toEqual([MINUTE_START, MINUTE_START + 1000]);
    expect(reads.at(-1)).toEqual([MINUTE_START + MINUTE - 1000, MINUTE_START + MINUTE]);
    expect(result).toMatchObject({ kind: 'walked', runs: 0, acked: true });
  });
});

describe('walking a slice late (a takeover, a late start)', () => {
  it('fans every overdue run out in the first read, at once', async () => {
    const runAts = [MINUTE_START + 1000, MINUTE_START + 20_000, MINUTE_START + 30_000];
    const takeoverAt = MINUTE_START + 25_000;
    const { walker, fanOuts } = walkerOver(runAts.map(run), { startAt: takeoverAt });
    await walker.walk(job, new AbortController().signal);
    expect(fanOuts[0]).toEqual({ at: takeoverAt, runAts: [MINUTE_START + 1000, MINUTE_START + 20_000] });
    expect(fanOuts.flatMap((f) => f.runAts)).toEqual(runAts);
  });
});

describe('walking through failures', () => {
  it('retries a failed window read and goes on', async () => {
    const { walker, fanOuts } = walkerOver([run(MINUTE_START)], { failReads: 2 });
    const result = await walker.walk(job, new AbortController().signal);
    expect(result).toMatchObject({ kind: 'walked', runs: 1 });
    expect(fanOuts.flatMap((f) => f.runAts)).toEqual([MINUTE_START]);
  });

  it('gives up after its read tries, so the slice job fails and is taken over', async () => {
    const { walker } = walkerOver([], { failReads: 100 });
    await expect(walker.walk(job, new AbortController().signal)).rejects.toThrow('redis timeout');
  });

  it('reports an ack that came too late (the lock was lost) as not acked', async () => {
    const { walker } = walkerOver([], { ack: false });
    expect(await walker.walk(job, new AbortController().signal)).toMatchObject({ acked: false });
  });

  it('says where the runs came from when MySQL stands in for Redis', async () => {
    const { walker } = walkerOver([run(MINUTE_START)], { source: 'mysql' });
    expect(await walker.walk(job, new AbortController().signal)).toMatchObject({ source: 'mysql' });
  });
});

describe('stopping', () => {
  it('stops part-way without acking when shutdown aborts the walk', async () => {
    const stopping = new AbortController();
    const { walker, acks } = walkerOver([]);
    stopping.abort();
    expect(await walker.walk(job, stopping.signal)).toEqual({ kind: 'stopped' });
    expect(acks()).toBe(0);
  });
});
