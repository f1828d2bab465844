import { describe, expect, it } from 'vitest';
import { type ChaosAction, type ChaosPlan, MAX_FAULTS, planChaos } from '../../../../bench/chaos/plan.js';

/** The chaos run's plan comes from the seed alone, and stays within its limits. */

const plans = [1, 2, 3, 42, 1234, 99_999].flatMap((seed) =>
  [2, 3].map((procs) => planChaos({ seed, minutes: 5, procs, timers: 40 })),
);

/** Each fault as [from, to, process slot or -1, kind], its undoing found in the plan. */
function faultSpans(plan: ChaosPlan): Array<[number, number, number, string]> {
  const spans: Array<[number, number, number, string]> = [];
  const after = (a: ChaosAction, match: (b: ChaosAction) => boolean) =>
    plan.actions.find((b) => b.atMs >= a.atMs && b !== a && match(b));
  for (const a of plan.actions) {
    if (a.kind === 'signal' && a.signal !== 'SIGCONT') {
      const undo = after(a, (b) =>
        a.signal === 'SIGSTOP'
          ? b.kind === 'signal' && b.signal === 'SIGCONT' && b.slot === a.slot
          : b.kind === 'restart' && b.slot === a.slot,
      );
      expect(undo, `${a.signal} at ${a.atMs} undone`).toBeDefined();
      spans.push([a.atMs, undo!.atMs, a.slot, a.signal]);
    } else if (a.kind === 'mysql-cut') {
      const undo = after(a, (b) => b.kind === 'mysql-restore' && b.slots.join() === a.slots.join());
      expect(undo, `MySQL cut at ${a.atMs} restored`).toBeDefined();
      spans.push([a.atMs, undo!.atMs, -1, 'mysql']);
    } else if (a.kind === 'sink' && a.mode !== 'ok') {
      const undo = after(a, (b) => b.kind === 'sink' && b.mode === 'ok');
      expect(undo, `sink ${a.mode} at ${a.atMs} ended`).toBeDefined();
      spans.push([a.atMs, undo!.atMs, -1, 'sink']);
    } else if (a.kind === 'redis-loss') spans.push([a.atMs, a.atMs + 1, -1, 'redis']);
  }
  return spans;
}

describe('chaos plan', () => {
  it('is the same for the same seed, and another for another seed', () => {
    const a = planChaos({ seed: 7, minutes: 3, procs: 3, timers: 40 });
    expect(planChaos({ seed: 7, minutes: 3, procs: 3, timers: 40 })).toEqual(a);
    expect(planChaos({ seed: 8, minutes: 3, procs: 3, timers: 40 }).actions).not.toEqual(a.actions);
  });

  it('undoes every fault within the window, never more than two at once nor two of a kind, one process always up', () => {
    for (const plan of plans) {
      const spans = faultSpans(plan);
      for (const [from, to] of spans) {
        expect(from).toBeGreaterThanOrEqual(0);
        expect(to).toBeLessThan(plan.windowMs);
        const atOnce = spans.filter(([f, t]) => f <= from && t > from);
        expect(atOnce.length, `seed ${plan.seed}: faults at ${from}`).toBeLessThanOrEqual(MAX_FAULTS);
        const procsDown = new Set(atOnce.map(([, , slot]) => slot).filter((s) => s >= 0));
        const others = atOnce.filter(([, , slot]) => slot < 0);
        expect(new Set(others.map(([, , , kind]) => kind)).size, `seed ${plan.seed}: one of a kind`).toBe(
          others.length,
        );
        expect(procsDown.size, `seed ${plan.seed}: processes down at ${from}`).toBeLessThan(plan.procs);
      }
    }
  });

  it('mixes every kind of fault and change over a few seeds', () => {
    const seen = new Set(
      plans.flatMap((p) =>
        p.actions.map((a) =>
          a.kind === 'signal' ? a.signal : a.kind === 'sink' ? `sink ${a.mode}` : a.kind,
        ),
      ),
    );
    expect([...seen].sort()).toEqual(
      [
        'SIGCONT',
        'SIGKILL',
        'SIGSTOP',
        'SIGTERM',
        'create',
        'delete',
        'disable',
        'enable',
        'mysql-cut',
        'mysql-restore',
        'patch-callback',
        'patch-end',
        'patch-schedule',
        'redis-loss',
        'restart',
        'sink fail',
        'sink hang',
        'sink ok',
        'sink slow',
      ].sort(),
    );
  });

  it('changes only timers that exist and fit the change', () => {
    for (const plan of plans) {
      const state = new Map(plan.initial.map((t) => [t.key, { active: true, deleted: false }]));
      for (const a of plan.actions) {
        if (a.kind === 'create') {
          expect(state.has(a.timer.key)).toBe(false);
          state.set(a.timer.key, { active: true, deleted: false });
        } else if ('timer' in a) {
          const s = state.get(a.timer);
          expect(s && !s.deleted, `${a.kind} of ${a.timer}`).toBe(true);
          if (a.kind === 'disable') expect(s!.active).toBe(true);
          if (a.kind === 'enable') expect(s!.active).toBe(false);
          if (a.kind === 'disable' || a.kind === 'enable') s!.active = a.kind === 'enable';
          if (a.kind === 'delete') s!.deleted = true;
        }
      }
    }
  });
});
