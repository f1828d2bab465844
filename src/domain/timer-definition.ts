import { type AuditFields, maskFields, timerFields } from './audit.js';
import type { Timer, TimerDraft, TimerPatch } from './timer.js';

/** A field's value before and after a change, as a plan shows it (credentials masked). */
export type FieldChanges = Record<string, { before: unknown; after: unknown }>;

/** How a stored timer differs from the definition asked for (an upsert, an apply). */
export interface DefinitionDiff {
  /** The definition fields that differ, as a PATCH that makes the stored timer the one asked for. */
  patch: TimerPatch;
  /** The status asked for, when it differs from the stored one (a completed timer counts as active). */
  status: 'active' | 'inactive' | null;
  /** Every differing field (flat, `callback.url`), masked. */
  changes: FieldChanges;
}

/** JSON with object keys sorted: two header maps in another order are the same headers. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * The difference between `current` and the definition `desired`, or null when they are
 * the same timer (then an upsert is a no-op). A completed timer asked to be active is
 * unchanged in status: it has done what it was defined to do.
 */
export function diffDefinition(current: Timer, desired: TimerDraft): DefinitionDiff | null {
  const before = timerFields(current);
  const after = timerFields(desired);
  if (current.status === 'completed' && desired.status === 'active') after.status = 'completed';
  const names = Object.keys(after).filter((name) => canonical(before[name]) !== canonical(after[name]));
  if (names.length === 0) return null;
  const masked = (fields: AuditFields) => maskFields(Object.fromEntries(names.map((n) => [n, fields[n]])));
  const [was, will] = [masked(before), masked(after)];
  const changes: FieldChanges = Object.fromEntries(
    names.map((name) => [name, { before: was[name] ?? null, after: will[name] ?? null }]),
  );
  const differs = new Set(names);
  const patch: TimerPatch = {};
  const callback: NonNullable<TimerPatch['callback']> = {};
  const retry: NonNullable<TimerPatch['retry']> = {};
  for (const name of names) {
    if (name.startsWith('callback.')) {
      const key = name.slice('callback.'.length) as keyof Timer['callback'];
      (callback as Record<string, unknown>)[key] = desired.callback[key];
    } else if (name.startsWith('retry.')) {
      const key = name.slice('retry.'.length) as keyof Timer['retry'];
      retry[key] = desired.retry[key];
    }
  }
  if (Object.keys(callback).length > 0) patch.callback = callback;
  if (Object.keys(retry).length > 0) patch.retry = retry;
  // A timer fires by its cron, its interval or at one time: setting one clears the others
  // (applyPatch), so the kind asked for is set whole (an interval with its offset).
  if (differs.has('cron') || differs.has('at') || differs.has('everyMs') || differs.has('offsetMs')) {
    if (desired.cron !== null) patch.cron = desired.cron;
    else if (desired.at !== null) patch.at = desired.at;
    else if (desired.everyMs !== null) {
      patch.everyMs = desired.everyMs;
      patch.offsetMs = desired.offsetMs;
    }
  }
  const same = <K extends keyof TimerDraft & keyof TimerPatch>(key: K) => {
    if (differs.has(key)) (patch as Record<string, unknown>)[key] = desired[key];
  };
  for (const key of [
    'name',
    'timezone',
    'misfirePolicy',
    'misfireThresholdMs',
    'startAt',
    'endAt',
    'maxRuns',
    'overlapPolicy',
    'notify',
    'labels',
    'description',
    'jitterMs',
    'autoPause',
    'skipCalendars',
  ] as const)
    same(key);
  // The calendars' dates come with their names (the service read them for the definition).
  if (differs.has('skipCalendars')) patch.skipDates = desired.skipDates;
  const status = differs.has('status') ? (desired.status === 'active' ? 'active' : 'inactive') : null;
  return { patch, status, changes };
}
