import type { CallResult } from '../../../callback/http-caller.js';
import type { AnswerLog, AttemptAnswer } from '../../../domain/attempt-answers.js';
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
  extra: {
    result?: CallResult | null;
    leaseUntil?: number;
    error?: string | null;
    /** A call in flight, not answered yet: when it went out. */
    sentAt?: number;
  },
): RunOutcome {
  const r = extra.result ?? null;
  const output = r?.kind === 'response' ? truncate(r.output, LIMITS.outputMaxChars) : null;
  return {
    timerId: run.timerId,
    runAt: run.runAt,
    status,
    attempts,
    httpStatus: r?.kind === 'response' ? r.status : null,
    output,
    error:
      r === null
        ? // A reason carries text people gave (a pause's note): cut to what the column holds.
          truncate(extra.error ?? null, LIMITS.errorMaxChars)
        : r.kind === 'error'
          ? truncate(r.error, LIMITS.errorMaxChars)
          : r.status >= 300
            ? `HTTP ${r.status}`
            : null,
    firedAt: r ? r.sentAt : (extra.sentAt ?? null),
    durationMs: r ? r.durationMs : null,
    leaseUntil: extra.leaseUntil ?? null,
    answers:
      r !== null
        ? answerLogOf(attempts, r, run.earlier)
        : extra.sentAt !== undefined
          ? inFlightLog(attempts, run.earlier)
          : null,
  };
}

/**
 * The answer log an outcome with a call writes: which attempt the row's columns hold, that
 * attempt's response headers and body size, and the earlier answers the run carried here.
 */
function answerLogOf(attempt: number, r: CallResult, earlier: AttemptAnswer[] | undefined): AnswerLog {
  const log: AnswerLog = { attempt };
  if (r.kind === 'response') {
    if (r.headers && Object.keys(r.headers).length > 0) log.headers = r.headers;
    if (r.bodyBytes !== undefined && r.bodyBytes !== null) log.bodyBytes = r.bodyBytes;
  }
  if (earlier && earlier.length > 0) log.earlier = earlier;
  return log;
}

/** A call in flight: its attempt has no answer yet; the earlier ones stay shown. */
function inFlightLog(attempt: number, earlier: AttemptAnswer[] | undefined): AnswerLog {
  return earlier && earlier.length > 0 ? { attempt, earlier } : { attempt };
}

/** An attempt's answer as the next attempt carries it (in its continuation job). */
export function attemptAnswerOf(attempt: number, r: CallResult): AttemptAnswer {
  const response = r.kind === 'response';
  return {
    attempt,
    sentAt: r.sentAt,
    httpStatus: response ? r.status : null,
    output: response ? truncate(r.output, LIMITS.outputMaxChars) : null,
    bodyBytes: response ? (r.bodyBytes ?? null) : null,
    durationMs: r.durationMs,
    error: response ? (r.status >= 300 ? `HTTP ${r.status}` : null) : truncate(r.error, LIMITS.errorMaxChars),
    headers: response && r.headers && Object.keys(r.headers).length > 0 ? r.headers : null,
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
