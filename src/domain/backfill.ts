import type { OverlapPolicy } from './timer.js';

/** The most runs one backfill makes. */
export const BACKFILL_MAX_RUNS = 10_000;

/** Where the pacer is with a backfill: queuing its runs, all queued (waiting for their outcomes), or ended. */
export type BackfillStage = 'sending' | 'sent' | 'ended';

/** How a backfill stands, as users see it. */
export const BACKFILL_STATES = ['sending', 'sent', 'completed', 'cancelled'] as const;
export type BackfillState = (typeof BACKFILL_STATES)[number];

/** A timer's schedule run over a past range `[from, to)`. */
export interface Backfill {
  id: number;
  timerId: number;
  app: string;
  from: number;
  to: number;
  /** The overlap policy its runs follow (null: `allow`). */
  overlapPolicy: OverlapPolicy | null;
  stage: BackfillStage;
  /** Round 0 queues each run once; later rounds queue again, at the same pace, runs lost meanwhile. */
  round: number;
  /** The schedule's instants in the range. */
  runs: number;
  /** Of those, the runs it made: the others were in the run history already and are left alone. */
  planned: number;
  /** Runs queued so far (each counted once). */
  sent: number;
  /** The next run to queue is the first pending one at or after this instant. */
  cursor: number;
  /** When the pacer last queued runs of it, or looked at them (its creation, before). */
  pacedAt: number;
  /** When its round last ended (its runs were last all queued). */
  checkedAt: number | null;
  cancelledAt: number | null;
  createdBy: string | null;
  /** Its runs are the backfill runs in its range whose rows were written in [createdAt, runsUntil]. */
  createdAt: number;
  runsUntil: number;
}

/**
 * What users see of a backfill's state: completed as soon as all its runs have ended,
 * though the pacer may not have looked at it since.
 */
export function backfillState(
  b: Pick<Backfill, 'stage' | 'cancelledAt'>,
  progress?: Pick<BackfillProgress, 'pending' | 'running'>,
): BackfillState {
  if (b.cancelledAt !== null) return 'cancelled';
  const unended = progress ? progress.pending + progress.running : 0;
  // One of its runs a user retried after it ended is under way again until that run ends.
  if (b.stage === 'ended') return unended > 0 ? 'sent' : 'completed';
  if (b.stage === 'sent' && progress && unended === 0) return 'completed';
  return b.stage;
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
