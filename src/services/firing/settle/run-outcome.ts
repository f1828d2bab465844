import type { CallResult } from '../../../callback/http-caller.js';
import { LIMITS, type TaskStatus } from '../../../domain/timer.js';
import type { RunOutcome } from '../../../storage/db/tasks/task-repository.js';
import type { RunToExecute } from '../run-execution.js';

function truncate(s: string | null, max: number): string | null {
  return s === null || s.length <= max ? s : s.slice(0, max);
}

/** The row a run's attempt writes: its status, the call's answer or the reason it made none. */
export function outcomeOf(
  run: RunToExecute,
  status: TaskStatus,
  attempts: number,
  extra: { result?: CallResult | null; leaseUntil?: number; error?: string | null },
): RunOutcome {
  const r = extra.result ?? null;
  return {
    timerId: run.timerId,
    runAt: run.runAt,
    status,
    attempts,
    httpStatus: r?.kind === 'response' ? r.status : null,
    output: r?.kind === 'response' ? truncate(r.output, LIMITS.outputMaxChars) : null,
    error:
      r === null
        ? // A reason carries text people gave (a pause's note): cut to what the column holds.
          truncate(extra.error ?? null, LIMITS.errorMaxChars)
        : r.kind === 'error'
          ? truncate(r.error, LIMITS.errorMaxChars)
          : r.status >= 300
            ? `HTTP ${r.status}`
            : null,
    firedAt: r ? r.sentAt : null,
    durationMs: r ? r.durationMs : null,
    leaseUntil: extra.leaseUntil ?? null,
  };
}

/** What a run's report says of its call: the attempt, the HTTP status, how late it went out. */
export function callFacts(run: RunToExecute, attempt: number, result: CallResult | null) {
  return {
    attempt,
    httpStatus: result?.kind === 'response' ? result.status : null,
    ...(result ? { latencyMs: result.sentAt - run.runAt } : {}),
  };
}
