import type { ApplyStep } from '../domain/apply-plan.js';
import type { Labels, TaskStatus, TimerStatus } from '../domain/timer.js';

/**
 * What the timer use cases are asked and answer beyond timers and runs themselves: the
 * list queries, the offset pages of the xtimer-compatible API, a run made on demand.
 * Shared by TimerService and ScopedTimers (which wraps it) without either importing the other's.
 */

export interface TimerQuery {
  app?: string | undefined;
  status?: TimerStatus | undefined;
  /** Timers carrying every one of these labels. */
  labels?: Labels | undefined;
  /** Names holding this text, case-insensitively. */
  nameContains?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** An offset page and the number of all matches (the xtimer-compatible API's paging). */
export interface Numbered<T> {
  items: T[];
  total: number;
}

export interface NumberedTimerQuery {
  app: string;
  name?: string | undefined;
  nameContains?: string | undefined;
  offset: number;
  limit: number;
}

export interface NumberedTaskQuery {
  timerId: number;
  statuses: readonly TaskStatus[];
  offset: number;
  limit: number;
}

export interface TaskQuery {
  statuses?: TaskStatus[] | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** The pending runs still to come, soonest first (otherwise: history, runs at or before now, newest first). */
  upcoming?: boolean | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A run made on demand (run now, retry), as the API answers it. */
export interface QueuedRunView {
  id: string;
  timerId: number;
  runAt: number;
  status: 'pending';
  trigger: 'manual' | 'retry';
}

/** What a PUT of a timer by name did. */
export type UpsertOutcome = 'created' | 'replaced' | 'unchanged';

/** What an apply did (or, on a dry run, would do). */
export interface ApplyResult {
  plan: ApplyStep[];
  applied: boolean;
}

export interface ApplyOptions {
  /** Delete the app's timers that the set leaves out. */
  prune: boolean;
  /** Only plan: change nothing. */
  dryRun: boolean;
}
