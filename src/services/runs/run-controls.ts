import { ANSWER_LIMITS, keptAnswers } from '../../domain/attempt-answers.js';
import { auditEntry } from '../../domain/audit.js';
import { keptADayFrom } from '../../domain/plan/day-partitions.js';
import { parseTaskKey, taskKey } from '../../domain/plan/task-key.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import type { AccessScope } from '../timers/access.js';
import type { TimerStore } from '../timers/timer-store.js';

/** A run made on demand (run now, retry), as the API answers it. */
export interface QueuedRunView {
  id: string;
  timerId: number;
  runAt: number;
  status: 'pending';
  trigger: 'manual' | 'retry';
}

/** How many run-now instants past `now` are tried when another run holds the millisecond. */
const MANUAL_RUN_TRIES = 1000;

/**
 * Runs made on demand: run now (a run at this millisecond, whatever the timer's status)
 * and the retry of a failed or missed run as its next attempt. Both are listed and end
 * like any run; backfills (BackfillService) run a past range.
 */
export class RunControls {
  constructor(private readonly store: TimerStore) {}

  /**
   * Run now: a run of the timer at this millisecond (or the next one free), called at
   * once, whatever the timer's status. It is listed and ends like any run.
   */
  async trigger(scope: AccessScope, id: number): Promise<QueuedRunView> {
    const timer = await this.store.owned(scope, id);
    await scope.spend();
    const { deps } = this.store;
    const now = deps.now();
    for (let runAt = now; runAt < now + MANUAL_RUN_TRIES; runAt++) {
      const run = { timerId: id, app: timer.app, runAt, version: timer.version };
      const inserted = await deps.database.transaction(async (tx) => {
        if (!(await this.store.tasksIn(tx).insertRun(run, 'manual'))) return false;
        if (scope.author) {
          const where = { app: timer.app, timerId: id };
          await deps.audit.record(
            auditEntry(scope.author, 'trigger', where, null, { taskId: taskKey(id, runAt) }),
            tx,
          );
        }
        return true;
      });
      if (!inserted) continue;
      await deps.planner.queueNow({ ...run, trigger: 'manual' });
      return { id: taskKey(id, runAt), timerId: id, runAt, status: 'pending', trigger: 'manual' };
    }
    throw new XtimerError(
      ErrorCode.APP_BUSY,
      `timer ${id} has a run in each of the next ${MANUAL_RUN_TRIES} ms`,
    );
  }

  /** Calls a failed or missed run again, as its next attempt, with the same task id. */
  async retry(scope: AccessScope, timerId: number, taskId: string): Promise<QueuedRunView> {
    const timer = await this.store.owned(scope, timerId);
    await scope.spend();
    const { deps } = this.store;
    const ref = parseTaskKey(taskId);
    const row = ref?.timerId === timerId ? await this.store.tasks.findInHistory(timerId, ref.runAt) : null;
    if (!ref || !row)
      throw new XtimerError(ErrorCode.TASK_NOT_FOUND, `timer ${timerId} has no run ${taskId}`);
    const kept = deps.historyDays;
    if (kept !== undefined && ref.runAt < keptADayFrom(deps.now(), kept)) {
      throw new XtimerError(
        ErrorCode.TASK_NOT_RETRYABLE,
        `run ${taskId} is in the run history's oldest day or before it (TASK_RETENTION_DAYS ${kept}): its day is dropped within a day, or was (the failure is kept apart), and a retry would end with no record`,
      );
    }
    await deps.database.transaction(async (tx) => {
      if (!(await this.store.tasksIn(tx).reopen(timerId, ref.runAt))) {
        throw new XtimerError(
          ErrorCode.TASK_NOT_RETRYABLE,
          `run ${taskId} is ${row.status}; only a failed or missed run can be retried`,
        );
      }
      if (scope.author) {
        const entry = auditEntry(
          scope.author,
          'retry',
          { app: timer.app, timerId },
          { taskId, status: row.status, attempts: row.attempts },
          { taskId, status: 'pending', attempts: row.attempts },
        );
        await deps.audit.record(entry, tx);
      }
    });
    // Its claim record turns into a backoff that ends now: the retry job claims the next attempt.
    await deps.claims.reopen({ key: taskId, runAt: ref.runAt }, row.attempts);
    await deps.planner.queueNow({
      timerId,
      runAt: ref.runAt,
      version: timer.version,
      afterAttempt: row.attempts,
      trigger: 'retry',
      // The retry's outcome overwrites the row's answer: it carries the answers kept so far.
      earlier: keptAnswers(row).slice(-ANSWER_LIMITS.earlierMax),
    });
    return { id: taskId, timerId, runAt: ref.runAt, status: 'pending', trigger: 'retry' };
  }
}
