import { describe, expect, it } from 'vitest';
import { untilReady } from '../../../src/lib/until-ready.js';

describe('waiting for a store to be reachable', () => {
  it('tries again after each failure, reporting it, until the attempt succeeds, then says it is reachable', async () => {
    const said: string[] = [];
    let tries = 0;
    await untilReady(
      {
        lost: (err) => said.push(`lost: ${(err as Error).message}`),
        reachable: () => said.push('reachable'),
      },
      async () => {
        if (++tries < 2) throw new Error('connect ECONNREFUSED');
      },
    );
    expect(tries).toBe(2);
    expect(said).toEqual(['lost: connect ECONNREFUSED', 'reachable']);
  });
});
