import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { ScheduleTooCostlyError } from '../src/domain/evaluation-budget.js';
import { CronSyntaxError } from '../src/domain/schedule/cron-schedule.js';
import { ErrorCode, RateLimitedError, XtimerError } from '../src/errors.js';
import type { Logger } from '../src/observability/logger.js';

/**
 * The one place typed errors become HTTP: a status and the envelope
 * `{"error": {"code", "message", "details"?}}`. Here, under both api/ and
 * dashboard/, because both answer errors this way.
 */

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_CRON: 400,
  INVALID_TIMEZONE: 400,
  INVALID_URL: 400,
  INVALID_METHOD: 400,
  INVALID_HEADERS: 400,
  CALLBACK_BODY_TOO_LARGE: 400,
  INVALID_APP: 400,
  INVALID_NAME: 400,
  INVALID_MISFIRE_POLICY: 400,
  INVALID_RETRY: 400,
  INVALID_CURSOR: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_FOUND: 404,
  TIMER_NOT_FOUND: 404,
  TIMER_NAME_TAKEN: 409,
  TIMER_COMPLETED: 409,
  TASK_NOT_FOUND: 404,
  TASK_NOT_RETRYABLE: 409,
  APP_BUSY: 409,
  VERSION_CONFLICT: 412,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  RETIRED_KEY: 403,
  CROSS_SITE_REFUSED: 403,
  HOST_NOT_ALLOWED: 421,
  RATE_LIMITED: 429,
  TIMER_LIMIT_REACHED: 409,
  CRON_TOO_FREQUENT: 400,
  CRON_TOO_COSTLY: 400,
  TARGET_BLOCKED: 400,
  APP_EXISTS: 409,
  APP_NOT_FOUND: 404,
  CALENDAR_NOT_FOUND: 400,
  CALENDAR_IN_USE: 409,
  BACKFILL_NOT_FOUND: 404,
  BACKFILL_TOO_LARGE: 400,
  BACKFILL_OVERLAPS: 409,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

export function statusOf(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

/** Which code a validation problem at a field gets when its issue carries none. */
const CODE_BY_FIELD: Record<string, ErrorCode> = {
  app: ErrorCode.INVALID_APP,
  name: ErrorCode.INVALID_NAME,
  cron: ErrorCode.INVALID_CRON,
  timezone: ErrorCode.INVALID_TIMEZONE,
  'callback.url': ErrorCode.INVALID_URL,
  'callback.method': ErrorCode.INVALID_METHOD,
  'callback.headers': ErrorCode.INVALID_HEADERS,
  misfirePolicy: ErrorCode.INVALID_MISFIRE_POLICY,
  retry: ErrorCode.INVALID_RETRY,
  cursor: ErrorCode.INVALID_CURSOR,
};

function codeOf(issue: z.core.$ZodIssue): ErrorCode {
  const declared = (issue as { params?: { code?: ErrorCode } }).params?.code;
  if (declared) return declared;
  // A batch item's field (timers.3.cron) gets the code the field has in a single create.
  const path = issue.path
    .map(String)
    .join('.')
    .replace(/^timers\.\d+\./, '')
    .split('.');
  for (let n = path.length; n > 0; n--) {
    const code = CODE_BY_FIELD[path.slice(0, n).join('.')];
    if (code) return code;
  }
  return ErrorCode.VALIDATION_FAILED;
}

/**
 * A zod failure as one typed error: the first issue's code and message, every issue in
 * details, each saying what is expected in words of the API rather than zod's defaults.
 * Several fields missing at once (an empty body) are named together.
 */
export function fromZodError(error: z.ZodError, where: string): XtimerError {
  const details = error.issues.flatMap((i) => detailsOf(i, where));
  const missing = details.filter((d) => d.message.startsWith(REQUIRED));
  if (missing.length > 1) {
    return new XtimerError(
      ErrorCode.VALIDATION_FAILED,
      `missing ${missing.map((d) => d.path).join(', ')}`,
      details,
    );
  }
  const [first] = details;
  const message = first!.path === where ? first!.message : `${first!.path}: ${first!.message}`;
  return new XtimerError(codeOf(error.issues[0]!), message, details);
}

const REQUIRED = 'is required';
const ZOD_TYPE = /^Invalid input: expected (\w+), received (\w+)$/;
const ZOD_OPTION = /^Invalid option: expected one of (.+)$/;

/** One issue as the API's details: an unknown key names the key itself. */
function detailsOf(issue: z.core.$ZodIssue, where: string): Array<{ path: string; message: string }> {
  const at = (extra: string[] = []) => [...issue.path.map(String), ...extra].join('.') || where;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: at([key]), message: 'is not a field here' }));
  }
  return [{ path: at(), message: plainMessage(issue.message) }];
}

function plainMessage(message: string): string {
  const type = ZOD_TYPE.exec(message);
  if (type) {
    const [, expected, received] = type;
    return received === 'undefined'
      ? `${REQUIRED} (${article(expected!)})`
      : `must be ${article(expected!)}, not ${article(received!)}`;
  }
  const option = ZOD_OPTION.exec(message);
  if (option) return `must be one of ${option[1]!.split('|').join(', ')}`;
  return message === 'Invalid input' ? 'is not valid here' : message;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

export function errorBody(err: XtimerError) {
  return {
    error: {
      code: err.code,
      message: err.message,
      details: err.details.map(({ path, message }) => ({ path, message })),
    },
  };
}

/** Any thrown value as a typed error; unknown failures become INTERNAL (and are logged). */
export function toXtimerError(err: unknown, logger?: Logger): XtimerError {
  if (err instanceof XtimerError) return err;
  if (err instanceof CronSyntaxError) return new XtimerError(ErrorCode.INVALID_CRON, err.message);
  if (err instanceof ScheduleTooCostlyError) {
    return new XtimerError(ErrorCode.CRON_TOO_COSTLY, err.message, [
      { path: err.field, message: err.message },
    ]);
  }
  if (err instanceof HTTPException) {
    if (err.status === 400 && /json/i.test(err.message)) {
      return new XtimerError(ErrorCode.INVALID_JSON, 'request body is not valid JSON');
    }
    if (err.status === 413)
      return new XtimerError(ErrorCode.PAYLOAD_TOO_LARGE, 'request body is larger than 1 MiB');
    if (err.status === 415) {
      return new XtimerError(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        'send the body as Content-Type: application/json',
      );
    }
    if (err.status === 404) return new XtimerError(ErrorCode.NOT_FOUND, err.message || 'not found');
    if (err.status === 503) return new XtimerError(ErrorCode.UNAVAILABLE, err.message || 'unavailable');
    return new XtimerError(ErrorCode.VALIDATION_FAILED, err.message || 'bad request');
  }
  logger?.error({ err }, 'unhandled error in request');
  return new XtimerError(ErrorCode.INTERNAL, 'internal error');
}

/** Headers an error answer carries: Retry-After on 429, the bearer challenge on 401. */
export function errorHeaders(e: XtimerError): Record<string, string> {
  if (e instanceof RateLimitedError) return { 'retry-after': String(e.retryAfterSec) };
  if (e.code === ErrorCode.UNAUTHORIZED) return { 'www-authenticate': 'Bearer realm="xtimer"' };
  return {};
}

export function respondError(c: Context, err: unknown, logger?: Logger): Response {
  const e = toXtimerError(err, logger);
  return c.json(errorBody(e), statusOf(e.code), errorHeaders(e));
}
