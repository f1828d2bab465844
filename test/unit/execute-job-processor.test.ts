import { describe, expect, it } from 'vitest';
import { ExecuteJobProcessor } from '../../src/services/execute-job-processor.js';
import type { RunReport, RunToExecute } from '../../src/services/run-executor.js';

const T = Date.UTC(2026, 10, 23, 18, 0, 0);

/** A processor over an executor that answers each run by its timer id. */
function processorAnswering(answer: (run: RunToExecute) => RunReport | Error) {
  const executed: RunToExecute[] = [];
  const processor = new ExecuteJobProcessor({
    execute: async (run) => {
      executed.push(run);
      const a = answer(run);
      if (a instanceof Error) throw a;
      return a;
    },
  });
  return { processor, executed };
}

describe('an execute job carrying one run', () => {
  it("is done with that run's report", async () => {
    const { processor } = processorAnswering(() => ({ verdict: 'succeeded', attempt: 1 }));
    expect(await processor.process({ timerId: 1, runAt: T, slice: 's' })).toEqual({
      kind: 'done',
      report: { verdict: 'succeeded', attempt: 1 },
    });
  });

  it('fails when its run fails, so the job is retried and the run stays pending', async () => {
    const { processor } = processorAnswering(() => new Error('mysql gone'));
    await expect(processor.process({ timerId: 1, runAt: T, slice: 's' })).rejects.toThrow('mysql gone');
  });
});

describe('an execute job carrying a batch of runs', () => {
  it('executes every run on its own, each with the slice of the batch', async () => {
    const { processor, executed } = processorAnswering(() => ({ verdict: 'succeeded' }));
    await processor.process({
      slice: '2026-11-23T18:00_0',
      runs: [1, 2, 3].map((timerId) => ({ timerId, runAt: T })),
    });
    expect(executed.map((r) => [r.timerId, r.slice])).toEqual([
      [1, '2026-11-23T18:00_0'],
      [2, '2026-11-23T18:00_0'],
      [3, '2026-11-23T18:00_0'],
    ]);
  });

  it('reports how many runs ended how, and the task key of each that did not succeed', async () => {
    const verdicts: Record<number, RunReport['verdict']> = {
      1: 'succeeded',
      2: 'duplicate',
      3: 'succeeded',
      4: 'retrying',
    };
    const { processor } = processorAnswering((run) => ({ verdict: verdicts[run.timerId] ?? 'failed' }));
    const result = await processor.process({
      slice: 's',
      runs: [1, 2, 3, 4].map((timerId) => ({ timerId, runAt: T })),
    });
    expect(result).toEqual({
      kind: 'done',
      report: {
        verdicts: { succeeded: 2, duplicate: 1, retrying: 1 },
        notSucceeded: { [`2_${T}`]: 'duplicate', [`4_${T}`]: 'retrying' },
      },
    });
  });

  it('goes back to wait for another executor when any of its runs was withdrawn (shutdown)', async () => {
    const { processor } = processorAnswering((run) => ({
      verdict: run.timerId === 2 ? 'withdrawn' : 'succeeded',
    }));
    expect(
      await processor.process({ slice: 's', runs: [1, 2].map((timerId) => ({ timerId, runAt: T })) }),
    ).toEqual({
      kind: 'withdrawn',
    });
  });

  it('fails when one of its runs fails, after every run has had its turn', async () => {
    const { processor, executed } = processorAnswering((run) =>
      run.timerId === 1 ? new Error('redis gone') : { verdict: 'succeeded' },
    );
    await expect(
      processor.process({ slice: 's', runs: [1, 2].map((timerId) => ({ timerId, runAt: T })) }),
    ).rejects.toThrow('redis gone');
    expect(executed).toHaveLength(2);
  });
});
