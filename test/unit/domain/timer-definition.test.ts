import { describe, expect, it } from 'vitest';
import { ifMatchOf } from '../../../api/etag.js';
import { planApply } from '../../../src/domain/apply-plan.js';
import { diffDefinition } from '../../../src/domain/timer-definition.js';
import { matchesVersion } from '../../../src/domain/version-match.js';
import { testDraft, testTimer } from '../../helpers/timers.js';

/** Timers-as-code rules: when a definition differs from a stored timer, and how; the plan of an apply; If-Match. */

describe('diffDefinition', () => {
  it('finds nothing between a timer and its own definition, header order aside', () => {
    const stored = testTimer({ callback: { ...testTimer().callback, headers: { a: '1', b: '2' } } });
    const desired = testDraft({ callback: { ...testDraft().callback, headers: { b: '2', a: '1' } } });
    expect(diffDefinition(stored, desired)).toBeNull();
  });

  it('names each changed field before and after, and patches exactly those', () => {
    const diff = diffDefinition(
      testTimer(),
      testDraft({
        cron: '0 * * * * *',
        callback: { ...testDraft().callback, timeoutMs: 900 },
        retry: { maxAttempts: 3, backoffMs: 10 },
        labels: { team: 'ops' },
      }),
    );
    expect(diff?.changes).toEqual({
      cron: { before: '* * * * * *', after: '0 * * * * *' },
      'callback.timeoutMs': { before: 5000, after: 900 },
      'retry.backoffMs': { before: 1000, after: 10 },
      labels: { before: {}, after: { team: 'ops' } },
    });
    expect(diff?.patch).toEqual({
      cron: '0 * * * * *',
      callback: { timeoutMs: 900 },
      retry: { backoffMs: 10 },
      labels: { team: 'ops' },
    });
    expect(diff?.status).toBeNull();
  });

  it('masks credentials in what it shows, yet sees a changed secret', () => {
    const stored = testTimer({
      callback: { ...testTimer().callback, headers: { authorization: 'Bearer old' } },
    });
    const desired = testDraft({
      callback: { ...testDraft().callback, headers: { authorization: 'Bearer new' } },
    });
    expect(diffDefinition(stored, desired)?.changes).toEqual({
      'callback.headers': { before: { authorization: '***' }, after: { authorization: '***' } },
    });
  });

  it('turns a cron timer into a one-shot and back', () => {
    const at = Date.UTC(2031, 0, 1);
    expect(diffDefinition(testTimer(), testDraft({ cron: null, at }))?.patch).toEqual({ at });
    expect(diffDefinition(testTimer({ cron: null, at }), testDraft())?.patch).toEqual({
      cron: '* * * * * *',
    });
  });

  it('sets the status asked for, but a completed timer asked to be active is unchanged', () => {
    expect(diffDefinition(testTimer(), testDraft({ status: 'inactive' }))?.status).toBe('inactive');
    expect(diffDefinition(testTimer({ status: 'completed' }), testDraft())).toBeNull();
    expect(
      diffDefinition(testTimer({ status: 'completed' }), testDraft({ status: 'inactive' }))?.status,
    ).toBe('inactive');
  });
});

describe('planApply', () => {
  const stored = [
    testTimer({ id: 1, name: 'a' }),
    testTimer({ id: 2, name: 'b' }),
    testTimer({ id: 3, name: 'c' }),
  ];

  it('lists the set in its order, then with prune the stored timers it leaves out', () => {
    const desired = [
      testDraft({ name: 'new' }),
      testDraft({ name: 'b', description: 'x' }),
      testDraft({ name: 'a' }),
    ];
    const steps = planApply(stored, desired, true);
    expect(steps.map((s) => [s.name, s.action])).toEqual([
      ['new', 'create'],
      ['b', 'update'],
      ['a', 'unchanged'],
      ['c', 'delete'],
    ]);
    expect(planApply(stored, desired, false).map((s) => s.action)).not.toContain('delete');
  });
});

describe('If-Match', () => {
  it('reads strong and weak tags, lists, bare numbers and *', () => {
    const match = (header: string, version: number) => matchesVersion(ifMatchOf(header)!, version);
    expect(match('"3"', 3)).toBe(true);
    expect(match('"3"', 4)).toBe(false);
    expect(match('W/"4", "5"', 5)).toBe(true);
    expect(match('7', 7)).toBe(true);
    expect(match('*', 12)).toBe(true);
    expect(match('"abc"', 1)).toBe(false);
    expect(ifMatchOf(undefined)).toBeUndefined();
  });
});
