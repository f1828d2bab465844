import { taskKey } from '../../domain/plan/task-key.js';
import { type ExecuteJobData, isRunBatch, runsOf } from '../../storage/redis/queues.js';
import type { RunReport, RunVerdict } from './run-execution.js';
import type { RunExecutor } from './run-executor.js';
import type { MissedInBulk } from './settle/missed-in-bulk.js';

/** What a batch job reports: how many runs ended how, and the task keys of those that did not succeed. */
export interface BatchReport {
  verdicts: Partial<Record<RunVerdict, number>>;
  notSucceeded: Record<string, RunVerdict>;
}

/** How an execute job ended: with its report, or withdrawn to wait for another executor (shutdown). */
export type ExecuteJobResult = { kind: 'done'; report: RunReport | BatchReport } | { kind: 'withdrawn' };

/**
 * One execute job (a run, or a batch of the runs one slice has due in one second): the
 * runs past saving settled together (`missed`), each other run executed on its own, the
 * job done once every run has left it (settled, handed to a retry job, or waiting for
 * its app's slot).
 */
export class ExecuteJobProcessor {
  constructor(
    private readonly executor: Pick<RunExecutor, 'executeAll'>,
    private readonly missed?: Pick<MissedInBulk, 'take'>,
  ) {}

  async process(data: ExecuteJobData): Promise<ExecuteJobResult> {
    const runs = runsOf(data);
    const taken = (await this.missed?.take(runs)) ?? new Map<number, RunReport>();
    // A failed run fails the job once every run has left it. Left pending in MySQL, it is
    // queued again by the compensator once its lease lapses.
    const executed = await this.executor.executeAll(runs.filter((_, i) => !taken.has(i)));
    let next = 0;
    const reports = runs.map((_, i) => taken.get(i) ?? (executed[next++] as RunReport));
    // Shutting down before its due time: the job goes straight back to wait for another
    // executor (the runs of a batch that went out already are then found done by their claims).
    if (reports.some((r) => r.verdict === 'withdrawn')) return { kind: 'withdrawn' };
    const [only] = reports;
    if (!isRunBatch(data) && only) return { kind: 'done', report: only };
    const batch: BatchReport = { verdicts: {}, notSucceeded: {} };
    reports.forEach((r, i) => {
      batch.verdicts[r.verdict] = (batch.verdicts[r.verdict] ?? 0) + 1;
      const run = runs[i];
      if (r.verdict !== 'succeeded' && run) batch.notSucceeded[taskKey(run.timerId, run.runAt)] = r.verdict;
    });
    return { kind: 'done', report: batch };
  }
}
