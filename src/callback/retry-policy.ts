import type { RetryPolicy } from '../domain/timer.js';
import type { CallResult } from './http-caller.js';

/** Success = a 2xx answer; anything else (or no answer) is a failure. */
export function isSuccess(r: CallResult): boolean {
  return r.kind === 'response' && r.status >= 200 && r.status < 300;
}

/**
 * Network errors, timeouts, 5xx and 429 are retried; other 4xx (and 1xx/3xx) are final,
 * and so are calls refused before sending (a forbidden target).
 */
export function isRetryable(r: CallResult): boolean {
  if (r.kind === 'error') return r.final !== true;
  return r.status >= 500 || r.status === 429;
}

/** Retry-After as a delay in ms: delta-seconds or an HTTP date; null if absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Longest wait honoured between attempts, Retry-After included. */
export const MAX_RETRY_DELAY_MS = 10 * 60_000;

/**
 * Delay before the attempt after `failedAttempt`: exponential from backoffMs with
 * "equal jitter" (half fixed, half random), and never sooner than Retry-After.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  failedAttempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const base = policy.backoffMs * 2 ** (failedAttempt - 1);
  const jittered = base / 2 + random() * (base / 2);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(jittered, retryAfterMs ?? 0));
}
