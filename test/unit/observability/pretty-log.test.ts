import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.js';
import { prettyLine } from '../../../src/observability/pretty-log.js';

/** LOG_FORMAT=pretty: one line a person reads, with the fields and the redaction of the JSON one. */

function capture() {
  const lines: string[] = [];
  const logger = createLogger('info', {}, { write: (s: string) => lines.push(s) }, 'pretty');
  return { logger, lines };
}

describe('pretty log lines', () => {
  it('read time, level, component and message, then the fields as key=value', () => {
    const { logger, lines } = capture();
    logger
      .child({ component: 'executor' })
      .warn(
        { taskKey: '42_1795342503000', attempt: 3, app: 'billing', timer: 'nightly invoice' },
        'run failed',
      );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN {2}\[executor\] run failed taskKey=42_1795342503000 attempt=3 app=billing timer="nightly invoice"\n$/,
    );
    expect(lines[0]).not.toContain('pid=');
  });

  it('quote values with spaces, quotes or =, and write objects as JSON', () => {
    const line = prettyLine(
      JSON.stringify({ time: 't', level: 'info', msg: 'm', a: 'x=y', b: 'say "hi"', c: { d: [1] }, e: null }),
    );
    expect(line).toBe('t INFO  m a="x=y" b="say \\"hi\\"" c={"d":[1]} e=null\n');
  });

  it('put an error message and code on the line and its stack indented below', () => {
    const { logger, lines } = capture();
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    logger.error({ err }, 'lost');
    const [first, ...rest] = lines[0]!.trimEnd().split('\n');
    expect(first).toMatch(/ERROR lost err="connect ECONNREFUSED 127\.0\.0\.1:6379 \(ECONNREFUSED\)"$/);
    expect(rest[0]).toBe('    Error: connect ECONNREFUSED 127.0.0.1:6379');
    expect(rest.slice(1).every((l) => l.startsWith('        at '))).toBe(true);
  });

  it('redact as the JSON lines do', () => {
    const { logger, lines } = capture();
    logger.info(
      { headers: { authorization: 'Bearer sk_live_1' }, callback: { body: 'sk_live_2' } },
      'request',
    );
    expect(lines.join('')).not.toContain('sk_live');
    expect(lines.join('')).toContain('[redacted]');
  });

  it('pass a line that is not JSON through as it is', () => {
    expect(prettyLine('plain text')).toBe('plain text\n');
  });
});
