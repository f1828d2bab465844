import { createHash } from 'node:crypto';
import type { Timer, TimerDraft } from './timer.js';
import { type DefinitionDiff, diffDefinition, type FieldChanges } from './timer-definition.js';

/** The most timers one apply may hold. */
export const MAX_APPLY_TIMERS = 5000;

export const APPLY_ACTIONS = ['create', 'update', 'delete', 'unchanged'] as const;
export type ApplyAction = (typeof APPLY_ACTIONS)[number];

/** One line of an apply's plan, as the API shows it. */
export interface ApplyStep {
  name: string;
  action: ApplyAction;
  /** An update's changed fields (credentials masked). */
  changes?: FieldChanges;
}

/** A step with what carrying it out needs: the definition asked for, the stored timer, their difference. */
export type PlannedStep =
  | { action: 'create'; name: string; index: number; desired: TimerDraft }
  | {
      action: 'update';
      name: string;
      index: number;
      desired: TimerDraft;
      current: Timer;
      diff: DefinitionDiff;
    }
  | { action: 'unchanged'; name: string; index: number; current: Timer }
  | { action: 'delete'; name: string; current: Timer };

/**
 * What applying `desired` (one app's whole set of timers) to that app's `stored` timers
 * does: each desired timer in the order given, created, updated or unchanged; then, with
 * `prune`, the stored timers the set leaves out, deleted (id order). Names are unique in
 * `desired` (the caller checks).
 */
export function planApply(
  stored: readonly Timer[],
  desired: readonly TimerDraft[],
  prune: boolean,
): PlannedStep[] {
  const byName = new Map(stored.map((t) => [t.name, t]));
  const steps: PlannedStep[] = desired.map((draft, index) => {
    const current = byName.get(draft.name);
    if (!current) return { action: 'create', name: draft.name, index, desired: draft };
    const diff = diffDefinition(current, draft);
    return diff
      ? { action: 'update', name: draft.name, index, desired: draft, current, diff }
      : { action: 'unchanged', name: draft.name, index, current };
  });
  if (prune) {
    const wanted = new Set(desired.map((d) => d.name));
    for (const t of stored)
      if (!wanted.has(t.name)) steps.push({ action: 'delete', name: t.name, current: t });
  }
  return steps;
}

/** The plan as the API shows it. */
export function presentablePlan(steps: readonly PlannedStep[]): ApplyStep[] {
  return steps.map((s) =>
    s.action === 'update'
      ? { name: s.name, action: s.action, changes: s.diff.changes }
      : { name: s.name, action: s.action },
  );
}

/**
 * What identifies a plan: its steps, the versions of the stored timers they act on and
 * the definitions asked for. An apply given the id of the plan it was shown (`planId`)
 * carries out that plan or none: a timer created, changed or deleted since, or another
 * set, makes another plan.
 */
export function planIdOf(steps: readonly PlannedStep[]): string {
  const parts = steps.map((s) => [
    s.action,
    s.name,
    'current' in s ? [s.current.id, s.current.version] : null,
    'desired' in s ? s.desired : null,
  ]);
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}
