/**
 * Typed errors with string codes. Services throw these; http/errors.ts is the one
 * place that turns them into HTTP statuses and the `{"error": {...}}` envelope.
 */
export const ErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID_JSON: 'INVALID_JSON',
  INVALID_CRON: 'INVALID_CRON',
  INVALID_TIMEZONE: 'INVALID_TIMEZONE',
  INVALID_URL: 'INVALID_URL',
  INVALID_METHOD: 'INVALID_METHOD',
  INVALID_HEADERS: 'INVALID_HEADERS',
  CALLBACK_BODY_TOO_LARGE: 'CALLBACK_BODY_TOO_LARGE',
  INVALID_APP: 'INVALID_APP',
  INVALID_NAME: 'INVALID_NAME',
  INVALID_MISFIRE_POLICY: 'INVALID_MISFIRE_POLICY',
  INVALID_RETRY: 'INVALID_RETRY',
  INVALID_CURSOR: 'INVALID_CURSOR',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  NOT_FOUND: 'NOT_FOUND',
  TIMER_NOT_FOUND: 'TIMER_NOT_FOUND',
  TIMER_NAME_TAKEN: 'TIMER_NAME_TAKEN',
  TIMER_COMPLETED: 'TIMER_COMPLETED',
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  TASK_NOT_RETRYABLE: 'TASK_NOT_RETRYABLE',
  APP_BUSY: 'APP_BUSY',
  VERSION_CONFLICT: 'VERSION_CONFLICT',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  RETIRED_KEY: 'RETIRED_KEY',
  CROSS_SITE_REFUSED: 'CROSS_SITE_REFUSED',
  HOST_NOT_ALLOWED: 'HOST_NOT_ALLOWED',
  RATE_LIMITED: 'RATE_LIMITED',
  TIMER_LIMIT_REACHED: 'TIMER_LIMIT_REACHED',
  CRON_TOO_FREQUENT: 'CRON_TOO_FREQUENT',
  CRON_TOO_COSTLY: 'CRON_TOO_COSTLY',
  TARGET_BLOCKED: 'TARGET_BLOCKED',
  APP_EXISTS: 'APP_EXISTS',
  APP_NOT_FOUND: 'APP_NOT_FOUND',
  CALENDAR_NOT_FOUND: 'CALENDAR_NOT_FOUND',
  CALENDAR_IN_USE: 'CALENDAR_IN_USE',
  BACKFILL_NOT_FOUND: 'BACKFILL_NOT_FOUND',
  BACKFILL_TOO_LARGE: 'BACKFILL_TOO_LARGE',
  BACKFILL_OVERLAPS: 'BACKFILL_OVERLAPS',
  UNAVAILABLE: 'UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** What exactly is wrong, field by field: `path` names it in the request (`timers.2.cron`). */
export interface ErrorDetail {
  path: string;
  message: string;
  /** Of a batch's item, its index (for the code; the API shows `path` and `message` only). */
  index?: number;
}

export class XtimerError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'XtimerError';
  }
}

/** Too many calls: the answer carries Retry-After. */
export class RateLimitedError extends XtimerError {
  constructor(
    message: string,
    readonly retryAfterSec: number,
  ) {
    super(ErrorCode.RATE_LIMITED, message);
    this.name = 'RateLimitedError';
  }
}

/** An If-Match naming a version the timer no longer has (or a timer that does not exist). */
export const versionConflict = (what: string, version: number | null) =>
  new XtimerError(
    ErrorCode.VERSION_CONFLICT,
    version === null
      ? `${what} does not exist, so no version of it matches If-Match`
      : `${what} is at version ${version} (ETag "${version}"), not the one If-Match names; read it again and retry`,
    version === null ? [] : [{ path: 'If-Match', message: `the current version is ${version}` }],
  );

export const timerNotFound = (id: number | string) =>
  new XtimerError(ErrorCode.TIMER_NOT_FOUND, `timer ${id} does not exist`);
