import { describe, expect, it } from 'vitest';
import { HeaderCollector } from '../../../src/callback/response-headers.js';
import { ANSWER_LIMITS } from '../../../src/domain/attempt-answers.js';

describe('the headers an answer keeps', () => {
  it('masks credential-looking names and joins repeated ones', () => {
    const c = new HeaderCollector();
    c.add('Set-Cookie', 'sid=1');
    c.add('X-Trace', 'a');
    c.add('x-trace', 'b');
    c.add('Authorization', 'Bearer x');
    expect(c.headers).toEqual({ 'set-cookie': '***', 'x-trace': 'a, b', authorization: '***' });
  });

  it('drops what no longer fits the budget', () => {
    const c = new HeaderCollector();
    for (let i = 0; i < 100; i++) c.add(`x-h${i}`, 'v'.repeat(20));
    const size = Object.entries(c.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(size).toBeLessThanOrEqual(ANSWER_LIMITS.headersMaxBytes);
    expect(c.headers['x-h0']).toBe('v'.repeat(20));
  });
});
