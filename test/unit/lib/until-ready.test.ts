import { describe, expect, it } from 'vitest';
import { untilReady } from '../../../src/lib/until-ready.js';

describe('waiting for a store to be reachable', () => {
  it('tries again after each failure, saying so, until the attempt succeeds', async () => {
    const said: Array<{ fields: Record<string, unknown>; message: string }> = [];
    let tries = 0;
    await untilReady('MySQL', { warn: (fields, message) => said.push({ fields, message }) }, async () => {
      if (++tries < 2) throw new Error('connect ECONNREFUSED');
    });
    expect(tries).toBe(2);
    expect(said).toEqual([
      {
        fields: { err: 'connect ECONNREFUSED', retryInMs: 500, tries: 1 },
        message: 'MySQL is not reachable yet',
      },
    ]);
  });
});
