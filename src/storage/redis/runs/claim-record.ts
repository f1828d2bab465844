import type { TaskStatus } from '../../../domain/timer.js';

/**
 * A run's claim record, the TS twin of lua/includes/claim-record.lua (the one place the
 * format is read in Lua): "state|attempt|untilMs|holder".
 */
export type FinalStatus = Exclude<TaskStatus, 'pending' | 'running'>;
export type ClaimState = 'claimed' | 'running' | 'backoff' | FinalStatus;

export interface ClaimRecord {
  state: ClaimState;
  attempt: number;
  /** claimed, running: when the lease lapses unless renewed; backoff: when the retry may start; else 0. */
  untilMs: number;
  /** The owner token of the attempt. */
  holder: string;
}

const STATES: ReadonlySet<string> = new Set([
  'claimed',
  'running',
  'backoff',
  'succeeded',
  'failed',
  'skipped',
  'missed',
]);
const RECORD = /^([a-z]+)\|(\d+)\|(\d+)\|(.*)$/s;

export function parseClaimRecord(raw: string | null | undefined): ClaimRecord | null {
  if (typeof raw !== 'string') return null;
  const m = RECORD.exec(raw);
  if (!m || !STATES.has(m[1]!)) return null;
  return { state: m[1] as ClaimState, attempt: Number(m[2]), untilMs: Number(m[3]), holder: m[4]! };
}

export function formatClaimRecord(r: ClaimRecord): string {
  return `${r.state}|${r.attempt}|${r.untilMs}|${r.holder}`;
}

export function isFinished(state: ClaimState): state is FinalStatus {
  return state !== 'claimed' && state !== 'running' && state !== 'backoff';
}

/** A holder has the run (its lease may have lapsed): it has claimed it, or is calling it. */
export function isHeld(state: ClaimState): boolean {
  return state === 'claimed' || state === 'running';
}

/** Calls made for the run: a holder that has not called has not made the attempt it holds. */
export function callsMade(record: ClaimRecord): number {
  return record.state === 'claimed' ? record.attempt - 1 : record.attempt;
}
