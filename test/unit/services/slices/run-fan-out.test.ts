import { describe, expect, it } from 'vitest';
import { RunFanOut } from '../../../../src/services/slices/run-fan-out.js';
import type { QueuedRun } from '../../../../src/storage/redis/queues.js';
import { deferred } from '../../../helpers/deferred.js';

const T = Date.parse('2030-01-01T00:00:00Z');
/** A second and a half before T: the runs below are read ahead of their time, as walks read them. */
const clock = () => T - 1500;

describe('RunFanOut', () => {
  it('queues the runs of walks made together as one fan-out, in time order, and answers each walk once it is queued', async () => {
    const calls: Array<{ runs: readonly QueuedRun[]; slice: string }> = [];
    const queued = deferred();
    const fanOut = new RunFanOut(
      async (runs, slice) => {
        calls.push({ runs, slice });
        await queued.promise;
      },
      clock,
      5,
    );
    let answered = 0;
    const walks = [
      fanOut.queue([{ timerId: 1, runAt: T + 900 }], 'm_1').then(() => answered++),
      fanOut.queue([{ timerId: 2, runAt: T + 100 }], 'm_2').then(() => answered++),
      fanOut.queue([{ timerId: 3, runAt: T + 500 }], 'm_3').then(() => answered++),
    ];
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]!.runs.map((r) => r.timerId)).toEqual([2, 3, 1]);
    expect(calls[0]!.slice).toBe('m_1+2');
    // Not before its runs are in the queue: a walk acks its slice after this.
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(0);
    queued.resolve();
    await Promise.all(walks);
    expect(answered).toBe(3);
  });

  it("keeps a lone walk's slice name, and tells every walk gathered when the queue refused them", async () => {
    const slices: string[] = [];
    const fanOut = new RunFanOut(
      async (_runs, slice) => {
        slices.push(slice);
        if (slices.length > 1) throw new Error('redis down');
      },
      clock,
      5,
    );
    await fanOut.queue([{ timerId: 1, runAt: T }], 'm_1');
    expect(slices).toEqual(['m_1']);
    const failed = await Promise.allSettled([
      fanOut.queue([{ timerId: 1, runAt: T + 1000 }], 'm_1'),
      fanOut.queue([{ timerId: 2, runAt: T + 1000 }], 'm_2'),
    ]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
  });

  it('sends a read holding runs already due at once and alone: its backlog must be able to reach the catch-up lane', async () => {
    const calls: string[] = [];
    const fanOut = new RunFanOut(
      async (runs, slice) => {
        calls.push(`${slice}:${runs.length}`);
      },
      clock,
      50,
    );
    const ahead = fanOut.queue([{ timerId: 1, runAt: T }], 'm_1');
    await fanOut.queue(
      [
        { timerId: 2, runAt: T - 2000 },
        { timerId: 3, runAt: T },
      ],
      'm_2',
    );
    expect(calls).toEqual(['m_2:2']);
    await ahead;
    expect(calls).toEqual(['m_2:2', 'm_1:1']);
  });
});
