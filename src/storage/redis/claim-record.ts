import type { TaskStatus } from '../../domain/timer.js';

/**
 * A run's claim record, the TS twin of lua/includes/claim-record.lua (the one place the
 * format is read in Lua): "state|attempt|untilMs|holder".
 */
export type FinalStatus = Exclude<TaskStatus, 'pending' | 'running'>;
export type ClaimState = 'running' | 'backoff' | FinalStatus;

export interface ClaimRecord {
  state: ClaimState;
  attempt: number;
  /** running: when the lease lapses unless renewed; backoff: when the retry may start; else 0. */
  untilMs: number;
  /** The owner token of the attempt. */
  holder: string;
}

const STATES: ReadonlySet<string> = new Set([
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
  const [, state = '', attempt, untilMs, holder = ''] = RECORD.exec(raw) ?? [];
  if (!STATES.has(state)) return null;
  return { state: state as ClaimState, attempt: Number(attempt), untilMs: Number(untilMs), holder };
}

export function formatClaimRecord(r: ClaimRecord): string {
  return `${r.state}|${r.attempt}|${r.untilMs}|${r.holder}`;
}

export function isFinished(state: ClaimState): state is FinalStatus {
  return state !== 'running' && state !== 'backoff';
}
