import { describe, expect, it } from 'vitest';
import type { CallResult } from '../../../src/callback/http-caller.js';
import { isRetryable, isSuccess, parseRetryAfter, retryDelayMs } from '../../../src/callback/retry-policy.js';

const response = (status: number): CallResult => ({
  kind: 'response',
  status,
  output: '',
  retryAfter: null,
  sentAt: 0,
  durationMs: 1,
});
const failure: CallResult = {
  kind: 'error',
  error: 'ECONNREFUSED',
  timedOut: false,
  sentAt: 0,
  durationMs: 1,
};

describe('retry policy', () => {
  it('counts 2xx as success and retries network errors, timeouts, 5xx and 429 only', () => {
    expect(isSuccess(response(204))).toBe(true);
    expect(isSuccess(response(301))).toBe(false);
    expect(isRetryable(failure)).toBe(true);
    expect(isRetryable(response(503))).toBe(true);
    expect(isRetryable(response(429))).toBe(true);
    expect(isRetryable(response(400))).toBe(false);
    expect(isRetryable(response(404))).toBe(false);
    expect(isRetryable(response(302))).toBe(false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('backs off exponentially with jitter and never sooner than Retry-After', () => {
    const policy = { maxAttempts: 5, backoffMs: 1000 };
    expect(retryDelayMs(policy, 1, null, () => 0)).toBe(500);
    expect(retryDelayMs(policy, 1, null, () => 1)).toBe(1000);
    expect(retryDelayMs(policy, 3, null, () => 0)).toBe(2000);
    expect(retryDelayMs(policy, 3, null, () => 1)).toBe(4000);
    expect(retryDelayMs(policy, 1, 7000, () => 0)).toBe(7000);
    expect(retryDelayMs(policy, 30, null, () => 1)).toBe(600_000);
  });
});
