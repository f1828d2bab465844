import { describe, expect, it } from 'vitest';
import { newOutcomes } from '../../../cli/commands/runs.js';
import type { components } from '../../../client/index.js';

type Task = components['schemas']['Task'];

const run = (status: string, attempts: number): Task =>
  ({ id: '42_1000', status, attempts }) as unknown as Task;

describe('xtimer runs --follow', () => {
  it('tells each outcome once, and a retried run that fails again once more', () => {
    const told = new Map<string, string>();
    expect(newOutcomes(told, [run('failed', 1)])).toHaveLength(1);
    expect(newOutcomes(told, [run('failed', 1)])).toHaveLength(0);
    expect(newOutcomes(told, [run('pending', 1)])).toHaveLength(0);
    expect(newOutcomes(told, [run('failed', 2)]).map((t) => t.attempts)).toEqual([2]);
  });
});
