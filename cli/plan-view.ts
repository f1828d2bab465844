import type { components } from '../client/index.js';
import type { Colors } from './terminal.js';

type ApplyResult = components['schemas']['ApplyResult'];
type ApplyStep = ApplyResult['plan'][number];

const show = (v: unknown) => (v === undefined ? 'null' : JSON.stringify(v));

/** How many steps of each action a plan holds. */
export function countActions(plan: readonly ApplyStep[]): Record<ApplyStep['action'], number> {
  const counts = { create: 0, update: 0, delete: 0, unchanged: 0 };
  for (const step of plan) counts[step.action]++;
  return counts;
}

export function hasChanges(plan: readonly ApplyStep[]): boolean {
  return plan.some((s) => s.action !== 'unchanged');
}

/**
 * A plan as a diff: `+` create, `~` update with each changed field before → after,
 * `-` delete; unchanged timers are counted, not listed.
 */
export function renderPlan(app: string, plan: readonly ApplyStep[], c: Colors): string {
  const lines: string[] = [];
  for (const step of plan) {
    if (step.action === 'create') lines.push(c.green(`+ ${step.name}`));
    else if (step.action === 'delete') lines.push(c.red(`- ${step.name}`));
    else if (step.action === 'update') {
      lines.push(c.yellow(`~ ${step.name}`));
      for (const [field, { before, after }] of Object.entries(step.changes ?? {})) {
        lines.push(`    ${field}: ${c.red(show(before))} → ${c.green(show(after))}`);
      }
    }
  }
  const n = countActions(plan);
  const summary = `${n.create} to create, ${n.update} to update, ${n.delete} to delete, ${n.unchanged} unchanged`;
  if (!hasChanges(plan)) return `${c.bold(`app ${app}:`)} no changes (${n.unchanged} unchanged).\n`;
  return `${c.bold(`app ${app}:`)}\n${lines.join('\n')}\n${c.bold('Plan:')} ${summary}.\n`;
}

/** What an apply did, in one line. */
export function renderApplied(app: string, result: ApplyResult): string {
  const n = countActions(result.plan);
  const batch = result.batchId ? ` (audit batch ${result.batchId})` : '';
  return `Applied to app ${app}: ${n.create} created, ${n.update} updated, ${n.delete} deleted, ${n.unchanged} unchanged${batch}.\n`;
}
