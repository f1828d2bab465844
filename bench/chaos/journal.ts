/**
 * The chaos run's journal: every action, as it was done, one JSON object a line, with its
 * wall-clock time (`at`, epoch ms) and its offset from the start of the run (`t`; the
 * planned offsets count from the `chaos.start` event). The checker reads the same events;
 * the file is for people, and for comparing two runs of one seed.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import type { TimerDef } from './timer-def.js';

export type Signal = 'SIGTERM' | 'SIGKILL' | 'SIGSTOP' | 'SIGCONT';
export type SinkMode = 'ok' | 'slow' | 'fail' | 'hang';
/** What made the checker's record of a timer's definition: a change, or a look after a change failed. */
export type DefineCause = 'create' | 'patch' | 'disable' | 'enable' | 'observe';

/** Events carry `at`; the timer events also when their request was sent (the change lands in between). */
export type JournalEvent = { at: number; t?: number } & (
  | { kind: 'run.start'; seed: number; minutes: number; procs: number; database: string; prefix: string }
  | { kind: 'chaos.start' }
  | { kind: 'chaos.end' }
  | { kind: 'restored' }
  /** After the restore: runs due before it still pending or running, and calls open. */
  | { kind: 'settling'; unsettled: number; open: number }
  | { kind: 'settled'; unsettled: number }
  | { kind: 'proc.start'; slot: number; name: string; pid: number }
  | { kind: 'proc.ready'; slot: number; name: string; pid: number }
  | { kind: 'proc.signal'; slot: number; name: string; pid: number; signal: Signal }
  /** `expected`: the run sent SIGTERM or SIGKILL; an exit nobody asked for is a crash. */
  | {
      kind: 'proc.exit';
      slot: number;
      name: string;
      pid: number;
      code: number | null;
      signal: string | null;
      expected: boolean;
    }
  | { kind: 'mysql.cut'; slots: number[] }
  | { kind: 'mysql.restore'; slots: number[] }
  /** Every key of the run unlinked in one MULTI, sent at `at`, done `ms` later. */
  | { kind: 'redis.loss'; keys: number; ms: number }
  | { kind: 'sink.phase'; mode: SinkMode; delayMs: number }
  | { kind: 'timer.define'; sentAt: number; timerId: number; key: string; cause: DefineCause; def: TimerDef }
  | { kind: 'timer.delete'; sentAt: number; timerId: number; key: string }
  | { kind: 'api.error'; sentAt: number; op: string; key: string; error: string }
  | { kind: 'skip'; action: string; why: string }
);

export type JournalKind = JournalEvent['kind'];

/** The events of one kind, typed. */
export type EventOf<K extends JournalKind> = Extract<JournalEvent, { kind: K }>;

export class Journal {
  readonly events: JournalEvent[] = [];
  constructor(
    readonly file: string,
    readonly origin = Date.now(),
  ) {
    writeFileSync(file, '');
  }

  write(event: JournalEvent): JournalEvent {
    const line = { ...event, t: event.at - this.origin };
    this.events.push(line);
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    return line;
  }
}
