import { WaitingError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { LANE_BEHIND_MS } from '../../../../src/services/firing/admission/execute-lanes.js';
import type { ExecuteJobResult } from '../../../../src/services/firing/execute-job-processor.js';
import { type LaneJob, LaneJobRunner } from '../../../../src/services/firing/lane-job-runner.js';
import {
  EXECUTE_LATE_QUEUE,
  EXECUTE_QUEUE,
  type ExecuteJobData,
} from '../../../../src/storage/redis/queues.js';

/**
 * One execute job as a lane's worker runs it, over fake jobs and a fake processor on an
 * injected clock: where it goes, what goes back to wait, and what is logged, once.
 */
const NOW = Date.parse('2030-05-01T08:00:00Z');

function job(runAt: number, extra: Partial<LaneJob> = {}): LaneJob & { waited: Array<string | undefined> } {
  const waited: Array<string | undefined> = [];
  const data: ExecuteJobData = { timerId: 7, runAt, slice: 's' };
  return {
    name: `7_${runAt}`,
    id: `7_${runAt}`,
    data,
    opts: { attempts: 1 },
    attemptsMade: 0,
    moveToWait: async (token?: string) => {
      waited.push(token);
      return 0;
    },
    waited,
    ...extra,
  };
}

function runner(result: () => Promise<ExecuteJobResult>) {
  const handedOn: LaneJob[] = [];
  const processed: ExecuteJobData[] = [];
  const logs: Array<{ level: string; msg: string; attempt?: number }> = [];
  const logger = createLogger('info', {}, { write: (line: string) => logs.push(JSON.parse(line)) });
  const r = new LaneJobRunner({
    processor: {
      process: (data) => {
        processed.push(data);
        return result();
      },
    },
    handOn: async (j) => {
      handedOn.push(j);
    },
    logger,
    now: () => NOW,
  });
  return { r, handedOn, processed, logs };
}

const done = async (): Promise<ExecuteJobResult> => ({ kind: 'done', report: { verdict: 'succeeded' } });

describe('a job fetched from an execute lane', () => {
  it('from `execute` more than LANE_BEHIND_MS overdue goes on to the catch-up lane, unrun', async () => {
    const { r, handedOn, processed } = runner(done);
    const late = job(NOW - LANE_BEHIND_MS - 1);
    expect(await r.run(EXECUTE_QUEUE, late)).toEqual({ handedOnTo: EXECUTE_LATE_QUEUE });
    expect(handedOn).toEqual([late]);
    expect(processed).toEqual([]);
  });

  it('from `execute` on time, or from the catch-up lane however late, is run', async () => {
    const { r, handedOn, processed } = runner(done);
    expect(await r.run(EXECUTE_QUEUE, job(NOW - LANE_BEHIND_MS))).toEqual({ verdict: 'succeeded' });
    expect(await r.run(EXECUTE_LATE_QUEUE, job(NOW - 60_000))).toEqual({ verdict: 'succeeded' });
    expect(handedOn).toEqual([]);
    expect(processed).toHaveLength(2);
  });

  it('withdrawn at shutdown goes back to wait under its token, and is no failure', async () => {
    const { r, logs } = runner(async () => ({ kind: 'withdrawn' }));
    const j = job(NOW);
    await expect(r.run(EXECUTE_QUEUE, j, 'tok')).rejects.toBeInstanceOf(WaitingError);
    expect(j.waited).toEqual(['tok']);
    r.failed(j, new WaitingError());
    expect(logs).toEqual([]);
  });
});

describe('a failed execute job', () => {
  it('is logged as an error on its last attempt, once, though BullMQ reports it again', async () => {
    const err = new Error('connect ECONNREFUSED');
    const { r, logs } = runner(() => Promise.reject(err));
    const j = job(NOW);
    await expect(r.run(EXECUTE_QUEUE, j)).rejects.toBe(err);
    r.failed(j, err);
    expect(logs.map((l) => [l.level, l.msg, l.attempt])).toEqual([['error', 'execute job failed', 1]]);
  });

  it('is logged as a warning while it is tried again', async () => {
    const { r, logs } = runner(() => Promise.reject(new Error('boom')));
    await expect(
      r.run(EXECUTE_QUEUE, job(NOW, { opts: { attempts: 4 }, attemptsMade: 1 })),
    ).rejects.toThrow();
    expect(logs.map((l) => [l.level, l.msg, l.attempt])).toEqual([
      ['warn', 'execute job failed; it is tried again', 2],
    ]);
  });

  it('that the processor did not throw (it stalled too often) is logged when BullMQ reports it', () => {
    const { r, logs } = runner(done);
    r.failed(job(NOW, { attemptsMade: 1 }), new Error('job stalled more than allowable limit'));
    r.failed(undefined, new Error('no job'));
    expect(logs.map((l) => [l.level, l.msg, l.attempt])).toEqual([['error', 'execute job failed', 1]]);
  });
});
