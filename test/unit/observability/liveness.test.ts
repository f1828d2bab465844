import { describe, expect, it } from 'vitest';
import { Liveness } from '../../../src/observability/liveness.js';

describe('Liveness', () => {
  it('is alive with nothing watched', () => {
    expect(new Liveness(() => 0).report()).toEqual({ alive: true, checks: {} });
  });

  it('stays alive while a watched thread beats within its limit, and says how long it was silent', () => {
    let now = 1_000;
    const liveness = new Liveness(() => now);
    liveness.watch('roles', 60_000);
    now += 59_000;
    liveness.beat('roles');
    now += 60_000;
    expect(liveness.report()).toEqual({ alive: true, checks: { roles: 'ok' } });
    expect(liveness.silences()).toEqual([{ name: 'roles', seconds: 60 }]);
  });

  it('is not alive once a watched thread is silent past its limit, naming it', () => {
    let now = 0;
    const liveness = new Liveness(() => now);
    liveness.watch('roles', 60_000);
    liveness.watch('other', 60_000);
    now = 30_000;
    liveness.beat('other');
    now = 75_000;
    expect(liveness.report()).toEqual({
      alive: false,
      checks: { roles: 'thread silent for 75 s', other: 'ok' },
    });
    liveness.beat('roles');
    expect(liveness.report().alive).toBe(true);
  });

  it('ignores beats of a thread it does not watch', () => {
    const liveness = new Liveness(() => 0);
    liveness.beat('roles');
    expect(liveness.report()).toEqual({ alive: true, checks: {} });
  });
});
