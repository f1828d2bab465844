import type { Pool } from 'mysql2/promise';
import { type AnswerLog, parseAnswerLog } from '../../../domain/attempt-answers.js';
import type { RunTrigger, Task, TaskStatus } from '../../../domain/timer.js';
import { sqlDateTime } from '../multi-row-insert.js';
import type { TaskRow, taskFailures, tasks } from '../schema.js';

/** The tables a timer's runs are read from: `tasks`, and the failures kept past its retention. */
export type RunTable = typeof tasks | typeof taskFailures;

export function toTask(row: TaskRow): Task {
  return {
    rowId: row.id,
    timerId: row.timerId,
    app: row.app,
    runAt: row.runAt.getTime(),
    status: row.status as TaskStatus,
    trigger: row.trigger as RunTrigger,
    attempts: row.attempts,
    httpStatus: row.httpStatus,
    output: row.output,
    error: row.error,
    firedAt: row.firedAt ? row.firedAt.getTime() : null,
    firstFiredAt: row.firstFiredAt ? row.firstFiredAt.getTime() : null,
    durationMs: row.durationMs,
    queuedAt: row.createdAt ? row.createdAt.getTime() : null,
    answers: parseAnswerLog(row.answerLog),
  };
}

export interface TaskListQuery {
  timerId: number;
  statuses?: readonly TaskStatus[];
  fromMs?: number;
  toMs?: number;
  /** Cursor: only runs strictly before this instant. */
  beforeMs?: number;
  /** Only runs strictly after this instant. */
  afterMs?: number;
  /** Soonest first (default: newest first). */
  ascending?: boolean;
  limit: number;
  offset?: number;
}

/** A run to materialise, with the timer version it is planned for. */
export interface PlannedRun {
  timerId: number;
  app: string;
  runAt: number;
  version: number;
}

/** A run's new state, as the executor reports it: the task's fields, and how long its current attempt may take. */
export interface RunOutcome
  extends Omit<Task, 'rowId' | 'app' | 'trigger' | 'firstFiredAt' | 'queuedAt' | 'answers'> {
  leaseUntil: number | null;
  /** What the row's columns do not hold of the attempts' answers; absent or null: kept as it is. */
  answers?: AnswerLog | null | undefined;
}

/** A pending run found in MySQL, for the trigger's fallback and the compensator. */
export interface PendingRun {
  timerId: number;
  runAt: number;
  /** The timer version it was planned for (0: unknown). */
  version: number;
}

/** A run's state in MySQL, as the executor's history check and the compensator read it. */
export interface RunState {
  status: TaskStatus;
  /** Calls made (the attempt in flight, while running). */
  attempts: number;
  /** While running: when the call (or the backoff) must be over by, unless its holder died. */
  leaseUntil: number | null;
}

/** A pending run past its time, with what made it (a user's run now or retry goes whatever the timer's status). */
export interface OverdueRun extends PendingRun {
  /** What made it: queued again, it goes out as the same kind of run. */
  trigger: RunTrigger;
}

/** A run MySQL shows running past its lease. */
export interface StuckRun extends OverdueRun {
  attempts: number;
}

export const TERMINAL = "'succeeded','failed','skipped','missed'";
/**
 * A backfill's pending runs are past instants waiting their turn: its pacer sends them
 * (BackfillPacer) and queues again those it sent that never ended. The slices, the
 * trigger's fallback and the compensator, which go by run time, leave them alone.
 */
export const NOT_BACKFILL = "run_trigger <> 'backfill'";

export interface PendingRow {
  timer_id: number;
  run_at: Date;
  timer_version: number;
}

export function toPendingRun(r: PendingRow): PendingRun {
  return { timerId: Number(r.timer_id), runAt: r.run_at.getTime(), version: Number(r.timer_version) };
}

/** `(timer_id, run_at)` pairs for a row-constructor IN list. */
export function runKeys(runs: readonly { timerId: number; runAt: number }[]): string {
  return runs.map((r) => `(${Number(r.timerId)},CAST('${sqlDateTime(r.runAt)}' AS DATETIME(3)))`).join(',');
}

export function literal(pool: Pick<Pool, 'escape'>, v: string | number | null): string {
  if (v === null) return 'NULL';
  return typeof v === 'number' ? String(v) : pool.escape(v);
}
