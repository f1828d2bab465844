import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorHeaders, respondError, statusOf, toXtimerError } from '../../http/errors.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { Logger } from '../../src/observability/logger.js';

/**
 * The Go xTimer's `{code, msg, err}` envelope and the statuses its errors answer with
 * (docs/migrating-from-go-xtimer.md), apart from its routes: authentication and the
 * app's own 404 and 413 answer compat paths in it too.
 */

/** The paths this API answers: their errors (even a 413 or an unknown route) use its envelope. */
export const COMPAT_PATH = /^\/api\/(timer|task)\/v1\//;

/** The request does not bind to the original's DTO (bad JSON, a wrong type, a missing field): gin answers 400. */
export class BindError extends XtimerError {}

/**
 * Failures the original cannot produce keep their own status, so that no Go client takes
 * them for an answer: authentication (401, 403), open mode's browser defences (403, 421,
 * 415), the rate limit (429, with Retry-After), an oversized body (413), an unknown route
 * (404, as gin answers it), and server faults.
 */
const OWN_STATUS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.UNAUTHORIZED,
  ErrorCode.FORBIDDEN,
  ErrorCode.CROSS_SITE_REFUSED,
  ErrorCode.HOST_NOT_ALLOWED,
  ErrorCode.RATE_LIMITED,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.NOT_FOUND,
  ErrorCode.UNAVAILABLE,
  ErrorCode.INTERNAL,
]);

function compatStatus(e: XtimerError): ContentfulStatusCode {
  if (e instanceof BindError || e.code === ErrorCode.INVALID_JSON) return 400;
  return OWN_STATUS.has(e.code) ? statusOf(e.code) : 200;
}

/** vo.CodeMsg. `err` is always null: the only value a Go client can decode into its `error` field. */
export const envelope = (code: 0 | -1, msg: string) => ({ code, msg, err: null });

/** An error in the original's envelope: `code: -1`, `msg` starting with the native error code. */
export function respondCompatError(c: Context, err: unknown, logger?: Logger): Response {
  const e = toXtimerError(err, logger);
  return c.json(envelope(-1, `${e.code}: ${e.message}`), compatStatus(e), errorHeaders(e));
}

/** An error in the envelope of the API `c`'s path belongs to: this one's, or the native one. */
export function respondErrorByPath(c: Context, err: unknown, logger?: Logger): Response {
  return COMPAT_PATH.test(c.req.path) ? respondCompatError(c, err, logger) : respondError(c, err, logger);
}
