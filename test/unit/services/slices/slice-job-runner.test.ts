import { WaitingError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { type SliceJob, SliceJobRunner } from '../../../../src/services/slices/slice-job-runner.js';
import type { WalkResult } from '../../../../src/services/slices/slice-walker.js';
import type { SliceJobData } from '../../../../src/storage/redis/queues.js';

/** One slice job as the trigger's worker runs it, over a fake walk, lock and job. */
const data: SliceJobData = {
  minute: '2030-01-01T10:00',
  bucket: 2,
  bucketCount: 4,
  token: 't',
  owner: 'test',
  claimedAt: 0,
};

function setUp(walk: () => Promise<WalkResult>) {
  const released: SliceJobData[] = [];
  const waited: Array<string | undefined> = [];
  const logs: Array<{ level: string; msg: string; slice?: string }> = [];
  const runner = new SliceJobRunner({
    walker: { walkOnce: walk },
    locks: {
      release: async (d) => {
        released.push(d);
      },
    },
    logger: createLogger('info', {}, { write: (line: string) => logs.push(JSON.parse(line)) }),
  });
  const job: SliceJob = {
    name: '2030-01-01T10:00_2',
    data,
    timestamp: 1,
    moveToWait: async (token?: string) => {
      waited.push(token);
      return 0;
    },
  };
  return { runner, job, released, waited, logs };
}

const signal = new AbortController().signal;

describe('a slice job', () => {
  it('ends with its walk once the whole minute was walked', async () => {
    const walked: WalkResult = { kind: 'walked', runs: 3, acked: true, source: 'redis' };
    const { runner, job, released, waited } = setUp(async () => walked);
    expect(await runner.run(job, 'tok', signal)).toEqual(walked);
    expect(released).toEqual([]);
    expect(waited).toEqual([]);
  });

  it('goes straight back to wait when its walk stopped for shutdown, and is no failure', async () => {
    const { runner, job, waited, logs } = setUp(async () => ({ kind: 'stopped' }));
    await expect(runner.run(job, 'tok', signal)).rejects.toBeInstanceOf(WaitingError);
    expect(waited).toEqual(['tok']);
    runner.failed(job, new WaitingError());
    expect(logs).toEqual([]);
  });

  it('lets go of the slice lock when its walk fails, and is logged as taken over', async () => {
    const err = new Error('redis timeout');
    const { runner, job, released, logs } = setUp(() => Promise.reject(err));
    await expect(runner.run(job, 'tok', signal)).rejects.toBe(err);
    expect(released).toEqual([data]);
    runner.failed(job, err);
    expect(logs.map((l) => [l.level, l.msg, l.slice])).toEqual([
      ['error', 'slice job failed; it will be taken over', job.name],
    ]);
  });
});
