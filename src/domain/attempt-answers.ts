// What a run keeps of its attempts' answers beyond the row's own columns (http_status,
// output, error, fired_at, duration_ms hold the latest): the latest's response headers and
// body size, and the answers of the attempts before it. The run inspector shows them; the
// firing path writes them in the outcome UPDATE it makes anyway, and a retry carries the
// earlier answers in its continuation job, so no attempt costs a statement of its own.

export const ANSWER_LIMITS = {
  /** Earlier attempts kept beside the latest: a run shows its last four attempts at most. */
  earlierMax: 3,
  /** An attempt's response headers, names and values together (Latin-1: a byte a character). */
  headersMaxBytes: 512,
  /** A header value longer than this is cut (before the total is counted). */
  headerValueMaxChars: 128,
} as const;

/** One attempt's answer, as the inspector shows it. */
export interface AttemptAnswer {
  attempt: number;
  /** When it was sent. */
  sentAt: number | null;
  httpStatus: number | null;
  /** The start of the response body (LIMITS.outputMaxChars at most). */
  output: string | null;
  /** The whole body's size in bytes when known: read whole, or declared by Content-Length. */
  bodyBytes: number | null;
  durationMs: number | null;
  error: string | null;
  /** The response headers kept (ANSWER_LIMITS), credential values as ***; null: none kept. */
  headers: Record<string, string> | null;
}

/** The `answer_log` of a run: what its row's columns do not hold. */
export interface AnswerLog {
  /** The attempt whose answer the row's columns hold. */
  attempt: number;
  headers?: Record<string, string> | undefined;
  bodyBytes?: number | undefined;
  /** The answers before it, oldest first, ANSWER_LIMITS.earlierMax at most. */
  earlier?: AttemptAnswer[] | undefined;
}

/** The earlier answers a next attempt carries: those so far and this one, the latest few. */
export function withEarlier(
  earlier: readonly AttemptAnswer[] | undefined,
  answer: AttemptAnswer,
): AttemptAnswer[] {
  return [...(earlier ?? []), answer].slice(-ANSWER_LIMITS.earlierMax);
}

/** A stored `answer_log` read back; null for none or anything unreadable (a row from before it). */
export function parseAnswerLog(text: string | null): AnswerLog | null {
  if (text === null || text === '') return null;
  try {
    const log = JSON.parse(text) as AnswerLog;
    return typeof log === 'object' && log !== null && typeof log.attempt === 'number' ? log : null;
  } catch {
    return null;
  }
}

/** A run's own answer fields, as its row holds them. */
export interface RunAnswerFields {
  attempts: number;
  httpStatus: number | null;
  output: string | null;
  error: string | null;
  firedAt: number | null;
  durationMs: number | null;
  answers?: AnswerLog | null | undefined;
}

/**
 * Every answer a run keeps, oldest first: the earlier attempts' from its log, then the one
 * its columns hold (a call in flight has none yet). A row written before the log existed
 * has its columns' answer alone, as its latest attempt's.
 */
export function keptAnswers(run: RunAnswerFields): AttemptAnswer[] {
  const log = run.answers ?? null;
  const out = [...(log?.earlier ?? [])];
  if (run.firedAt === null) return out;
  // A call in flight has written its send time and no answer yet.
  const answered =
    run.durationMs !== null || run.httpStatus !== null || run.output !== null || run.error !== null;
  if (!answered) return out;
  out.push({
    attempt: log?.attempt ?? run.attempts,
    sentAt: run.firedAt,
    httpStatus: run.httpStatus,
    output: run.output,
    bodyBytes: log?.bodyBytes ?? null,
    durationMs: run.durationMs,
    error: run.error,
    headers: log?.headers ?? null,
  });
  return out;
}
