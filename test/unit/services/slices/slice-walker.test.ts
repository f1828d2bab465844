import { describe, expect, it } from 'vitest';
import type { SliceRun } from '../../../../src/domain/plan/task-key.js';
import { createLogger } from '../../../../src/observability/logger.js';
import type { WindowRead } from '../../../../src/services/slices/slice-reader.js';
import { SLICE_HOLD_EVERY_MS, SliceWalker } from '../../../../src/services/slices/slice-walker.js';
import type { SliceJobData } from '../../../../src/storage/redis/queues.js';

/**
 * The trigger's walk of one slice, on an injected clock: each 1 s window is
 * read PREREAD_MS before it starts and fanned out; overdue runs go out in one read; the
 * slice is acked only once its whole minute was walked.
 */
const MINUTE_START = Date.parse('2026-11-24T10:05:00Z');
const PREREAD = 1500;
const slice: SliceJobData = {
  minute: '2026-11-24T10:05',
  bucket: 3,
  bucketCount: 10,
  token: 't',
  owner: 'test',
  claimedAt: 0,
};

function walkerAt(startMs: number, runs: SliceRun[], opts: { failReads?: number; ackOk?: boolean } = {}) {
  let clock = startMs;
  let failures = opts.failReads ?? 0;
  const reads: Array<[number, number, number]> = [];
  const fanned: Array<{ at: number; runAts: number[] }> = [];
  const acked: number[] = [];
  const held: number[] = [];
  const metric = { observe: () => undefined, inc: () => undefined };
  const walker = new SliceWalker({
    reader: {
      async read(_minute, _bucket, from, to): Promise<WindowRead> {
        reads.push([clock, from, to]);
        if (failures-- > 0) throw new Error('redis timeout');
        return { runs: runs.filter((r) => r.runAt >= from && r.runAt < to), source: 'redis' };
      },
    },
    async fanOut(list) {
      fanned.push({ at: clock, runAts: list.map((r) => r.runAt) });
    },
    async hold() {
      held.push(clock);
      return true;
    },
    async ack() {
      acked.push(clock);
      return opts.ackOk ?? true;
    },
    metrics: { sliceLag: metric, slices: metric } as never,
    prereadMs: PREREAD,
    logger: createLogger('silent'),
    now: () => clock,
    // The clock moves only when the walker waits: a walk takes no time of its own.
    sleep: async (ms) => {
      clock += ms;
    },
  });
  return { walker, reads, fanned, acked, held, now: () => clock };
}

const run = (second: number, timerId = 1): SliceRun => ({
  timerId,
  runAt: MINUTE_START + second * 1000,
  version: 1,
});

describe('a slice walked on time', () => {
  it('reads each 1 s window PREREAD_MS before it starts and fans out the runs it holds', async () => {
    const w = walkerAt(MINUTE_START - 10_000, [run(0), run(0, 2), run(30), run(59)]);
    const result = await w.walker.walk(slice, new AbortController().signal);
    expect(result).toEqual({ kind: 'walked', runs: 4, acked: true, source: 'redis' });
    expect(w.reads).toHaveLength(60);
    for (const [at, from, to] of w.reads) {
      expect(at).toBe(from - PREREAD);
      expect(to - from).toBe(1000);
    }
    expect(w.fanned).toEqual([
      { at: MINUTE_START - PREREAD, runAts: [run(0).runAt, run(0).runAt] },
      { at: MINUTE_START + 30_000 - PREREAD, runAts: [run(30).runAt] },
      { at: MINUTE_START + 59_000 - PREREAD, runAts: [run(59).runAt] },
    ]);
    expect(w.acked).toEqual([MINUTE_START + 59_000 - PREREAD]);
  });

  it('renews its slice lock every SLICE_HOLD_EVERY_MS while it walks, so a late walk keeps it to the ack', async () => {
    const w = walkerAt(MINUTE_START - PREREAD, [run(0)]);
    await w.walker.walk(slice, new AbortController().signal);
    const start = MINUTE_START - PREREAD;
    expect(w.held).toEqual([1, 2, 3, 4, 5].map((n) => start + n * SLICE_HOLD_EVERY_MS));
  });
});

describe('a slice taken over late', () => {
  it('fans out every overdue run in its first read, then goes on window by window', async () => {
    const w = walkerAt(MINUTE_START + 20_250, [run(1), run(19), run(21), run(22), run(40)]);
    await w.walker.walk(slice, new AbortController().signal);
    // Up to the next whole second after now + preread: seconds 0-21.
    expect(w.reads[0]).toEqual([MINUTE_START + 20_250, MINUTE_START, MINUTE_START + 22_000]);
    expect(w.fanned[0]).toEqual({
      at: MINUTE_START + 20_250,
      runAts: [run(1).runAt, run(19).runAt, run(21).runAt],
    });
    expect(w.fanned.flatMap((f) => f.runAts)).toEqual([1, 19, 21, 22, 40].map((s) => run(s).runAt));
  });
});

describe('a slice whose reads fail or whose lock is lost', () => {
  it('retries a failed read and loses none of its runs', async () => {
    const w = walkerAt(MINUTE_START - 5000, [run(0)], { failReads: 2 });
    const result = await w.walker.walk(slice, new AbortController().signal);
    expect(result).toMatchObject({ kind: 'walked', runs: 1 });
    expect(w.reads.slice(0, 3).map(([, from]) => from)).toEqual([MINUTE_START, MINUTE_START, MINUTE_START]);
  });

  it('says it was not acked when the lock was lost first', async () => {
    const w = walkerAt(MINUTE_START - 5000, [], { ackOk: false });
    expect(await w.walker.walk(slice, new AbortController().signal)).toMatchObject({ acked: false });
  });

  it('stops part-way at shutdown without acking, so the slice goes back for another trigger', async () => {
    const w = walkerAt(MINUTE_START - 5000, [run(0), run(50)]);
    const stopping = new AbortController();
    const walking = w.walker.walk(slice, stopping.signal);
    stopping.abort();
    expect(await walking).toEqual({ kind: 'stopped' });
    expect(w.acked).toEqual([]);
  });
});

describe('a slice handed back while it is walked', () => {
  it('is walked once: a second call for the same job shares the walk under way', async () => {
    const w = walkerAt(MINUTE_START - PREREAD, [run(0), run(30)]);
    const stopping = new AbortController().signal;
    const [first, second] = await Promise.all([
      w.walker.walkOnce(slice, 1, stopping),
      w.walker.walkOnce(slice, 1, stopping),
    ]);
    expect(second).toBe(first);
    expect(w.reads).toHaveLength(60);
    expect(w.fanned.flatMap((f) => f.runAts)).toHaveLength(2);
    // Once it ended, the slice may be walked again (a retake after a lost ack): overdue, in one read.
    await w.walker.walkOnce(slice, 1, stopping);
    expect(w.reads).toHaveLength(61);
  });

  it('gets a walk of its own when its job was queued anew (the slice claimed again after Redis lost its data)', async () => {
    const w = walkerAt(MINUTE_START - PREREAD, [run(0), run(30)]);
    const stopping = new AbortController().signal;
    const [first, second] = await Promise.all([
      w.walker.walkOnce(slice, 1, stopping),
      w.walker.walkOnce(slice, 2, stopping),
    ]);
    expect(second).not.toBe(first);
    expect(w.fanned.flatMap((f) => f.runAts)).toHaveLength(4);
  });
});
