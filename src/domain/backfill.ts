import type { OverlapPolicy } from './timer.js';

/** The most runs one backfill makes. */
export const BACKFILL_MAX_RUNS = 10_000;

/** Stored states: queuing its runs, all queued (waiting for their outcomes), done, or cancelled. */
export const BACKFILL_STATES = ['sending', 'sent', 'completed', 'cancelled'] as const;
export type BackfillState = (typeof BACKFILL_STATES)[number];

/** A timer's schedule run over a past range `[from, to)` (issue 21). */
export interface Backfill {
  id: number;
  timerId: number;
  app: string;
  from: number;
  to: number;
  /** The overlap policy its runs follow (null: the timer's). */
  overlapPolicy: OverlapPolicy | null;
  status: BackfillState;
  /** The schedule's instants in the range. */
  runs: number;
  /** Of those, the runs it made: the others were in the run history already and are left alone. */
  planned: number;
  /** Runs queued so far. */
  sent: number;
  /** The next run to queue is the first planned at or after this instant. */
  cursor: number;
  /** When the pacer last looked for queued runs that never ended. */
  checkedAt: number | null;
  createdBy: string | null;
  createdAt: number;
  /** When the pacer last queued runs of it (its creation, before). */
  pacedAt: number;
}

/** How a backfill's runs stand in the run history. */
export interface BackfillProgress {
  pending: number;
  running: number;
  succeeded: number;
  failed: number;
  skipped: number;
  missed: number;
}
