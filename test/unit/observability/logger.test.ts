import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { createLogger, MAX_LOG_LINE_BYTES } from '../../../src/observability/logger.js';

/**
 * Logs never carry SQL parameters, header values, bodies or credentials, and no
 * line is longer than MAX_LOG_LINE_BYTES (a 500 once logged a 525 KB line with a timer's
 * headers in its SQL parameters).
 */

const SECRET = 'Bearer sk_live_0123456789abcdef';

function capture() {
  const lines: string[] = [];
  const logger = createLogger('info', { component: 'api' }, { write: (s: string) => lines.push(s) });
  return { logger, lines, text: () => lines.join('') };
}

/** The error drizzle throws when MySQL refuses an insert: the statement and every value in it. */
function failedInsert(): DrizzleQueryError {
  const headers = JSON.stringify({ authorization: SECRET, 'x-pad': 'p'.repeat(70_000) });
  const cause = Object.assign(new Error("Data too long for column 'callback_headers' at row 1"), {
    code: 'ER_DATA_TOO_LONG',
    errno: 1406,
    sqlState: '22001',
    sql: `insert into timers (callback_headers) values ('${headers}')`,
  });
  return new DrizzleQueryError('insert into `timers` (`callback_headers`) values (?)', [headers], cause);
}

describe('the logger', () => {
  it('logs a failed query by its statement and cause, never its parameters', () => {
    const { logger, lines, text } = capture();
    logger.error({ err: failedInsert() }, 'unhandled error in request');
    expect(lines).toHaveLength(1);
    expect(text()).not.toContain('sk_live');
    expect(text()).not.toContain('ppppp');
    const line = JSON.parse(lines[0]!);
    expect(line.err.message).toContain('Failed query: insert into `timers`');
    expect(line.err.cause).toMatchObject({
      code: 'ER_DATA_TOO_LONG',
      message: expect.stringContaining('Data too long'),
    });
    expect(line.err.stack).toMatch(/params: \[redacted\]\n\s+at /);
    expect(line.err.cause.sql).toBeUndefined();
    expect(lines[0]!.length).toBeLessThan(MAX_LOG_LINE_BYTES);
  });

  it('scrubs the parameters from an error message logged as a string', () => {
    const { logger, text } = capture();
    logger.warn({ err: failedInsert().message }, 'migration failed; will retry');
    expect(text()).toContain('Failed query');
    expect(text()).not.toContain('sk_live');
  });

  it('redacts header values, bodies and credentials wherever they are logged', () => {
    const { logger, text } = capture();
    logger.info(
      {
        authorization: SECRET,
        headers: { authorization: SECRET },
        req: { headers: { cookie: 'session=sk_live' }, body: 'sk_live body' },
        callback: {
          url: 'https://hooks.example.com/run',
          headers: { 'x-api-key': 'sk_live' },
          body: 'sk_live',
        },
        params: ['sk_live'],
      },
      'request',
    );
    expect(text()).not.toContain('sk_live');
    expect(text()).toContain('https://hooks.example.com/run');
    expect(text()).toContain('[redacted]');
  });

  it('caps every line, keeping its level, time, bindings and the start of its message', () => {
    const { logger, lines } = capture();
    logger.error(
      { detail: { list: Array.from({ length: 50_000 }, (_, i) => i) } },
      `big ${'m'.repeat(2000)}`,
    );
    expect(lines).toHaveLength(1);
    expect(Buffer.byteLength(lines[0]!)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 'error', component: 'api', truncatedFromBytes: expect.any(Number) });
    expect(line.truncatedFromBytes).toBeGreaterThan(MAX_LOG_LINE_BYTES);
    expect(line.msg).toMatch(/^big m+$/);
    expect(typeof line.time).toBe('string');
  });

  it('writes ordinary lines unchanged', () => {
    const { logger, lines } = capture();
    logger.child({ slice: '2026-11-22T10:05_3' }).info({ runs: 12, acked: true }, 'slice walked');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      component: 'api',
      slice: '2026-11-22T10:05_3',
      runs: 12,
      acked: true,
      msg: 'slice walked',
    });
  });
});
