/** What a chaos run prints: a compact summary, then every violation with the journal around it. */
import type { CheckResult, RunRow, SinkCall, Violation } from './checker.js';
import type { JournalEvent } from './journal.js';

/** What the checker judged besides the journal, kept in the output directory. */
export interface Evidence {
  /** The start of the chaos window. */
  t0: number;
  checkUntil: number;
  calls: SinkCall[];
  rows: RunRow[];
}

/** The summary and every violation, as lines. */
export function verdict(journal: readonly JournalEvent[], t0: number, result: CheckResult): string[] {
  const r = new Reporter(journal, t0);
  return [
    `chaos: ${r.actions()}`,
    ...r.summary(result).map((line) => `  ${line}`),
    ...r.byKind(result.violations).map((line) => `  ${line}`),
    ...result.violations.flatMap((v, i) => r.violation(v, sameEvents(v, result.violations[i - 1]))),
  ];
}

/** Times read as offsets from the start of the chaos window. */
export class Reporter {
  private readonly keyOf = new Map<number, string>();
  private readonly nameOf = new Map<number, string>();

  constructor(
    private readonly journal: readonly JournalEvent[],
    private readonly t0: number,
  ) {
    for (const e of journal) {
      if (e.kind === 'timer.define' || e.kind === 'timer.delete') this.keyOf.set(e.timerId, e.key);
      if (e.kind === 'proc.start') this.nameOf.set(e.pid, e.name);
    }
  }

  rel(at: number): string {
    const s = (at - this.t0) / 1000;
    return `${s < 0 ? '' : '+'}${s.toFixed(1)} s`;
  }

  /** One line per kind of thing that happened, with counts. */
  actions(): string {
    const counts = new Map<string, number>();
    const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
    for (const e of this.journal) {
      if (e.at < this.t0) continue;
      if (e.kind === 'proc.signal') bump(e.signal);
      else if (e.kind === 'proc.exit' && !e.expected) bump('crash');
      else if (e.kind === 'timer.define' && e.cause !== 'observe') bump(e.cause);
      else if (e.kind === 'timer.delete') bump('delete');
      else if (e.kind === 'sink.phase' && e.mode !== 'ok') bump(`sink ${e.mode}`);
      else if (e.kind === 'mysql.cut') bump(e.slots.length > 1 ? 'mysql cut (all)' : 'mysql cut (one)');
      else if (e.kind === 'redis.loss' || e.kind === 'api.error' || e.kind === 'skip') bump(e.kind);
    }
    return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
  }

  summary(result: CheckResult): string[] {
    const recorded = Object.entries(result.recorded)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ');
    const byKind = new Map<string, number>();
    for (const v of result.violations) byKind.set(v.kind, (byKind.get(v.kind) ?? 0) + 1);
    return [
      `owed runs: ${result.owed}: delivered once ${result.deliveredOnce}, again after a takeover ${result.redelivered}, ` +
        `recorded ${recorded || 'none'}; unjudged (deleted before they settled) ${result.unjudged}`,
      `runs near a change (either way): ${result.either}; calls: ${result.calls}, runs retried ${result.retried}, ` +
        `takeovers ${result.takeovers}`,
      `violations: ${result.violations.length}${byKind.size ? ` (${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}`,
    ];
  }

  /**
   * A line per kind of violation: how many, a few task ids, and the faults most often
   * around them (where to start looking).
   */
  byKind(violations: readonly Violation[]): string[] {
    const kinds = new Map<string, Violation[]>();
    for (const v of violations) kinds.set(v.kind, [...(kinds.get(v.kind) ?? []), v]);
    return [...kinds].map(([kind, list]) => {
      const around = new Map<JournalEvent, number>();
      for (const v of list) {
        for (const e of v.events) {
          // The faults themselves: not their undoing, nor changes to one timer.
          const undoing =
            e.kind === 'proc.ready' ||
            e.kind === 'mysql.restore' ||
            (e.kind === 'sink.phase' && e.mode === 'ok');
          if (!undoing && e.kind !== 'timer.define' && e.kind !== 'timer.delete') {
            around.set(e, (around.get(e) ?? 0) + 1);
          }
        }
      }
      const top = [...around]
        .sort((a, b) => b[1] - a[1] || a[0].at - b[0].at)
        .slice(0, 3)
        .map(([e, n]) => `${this.event(e)} at ${this.rel(e.at)} (${n})`);
      const ids = list.slice(0, 3).map((v) => v.taskId);
      return `${kind} ${list.length} (${ids.join(', ')}${list.length > 3 ? ', …' : ''})${top.length ? `; around: ${top.join(', ')}` : ''}`;
    });
  }

  /** A violation's lines; its events only if the one before did not show the same. */
  violation(v: Violation, eventsShown = false): string[] {
    const key = this.keyOf.get(v.timerId) ?? '?';
    const lines = [`✗ ${v.kind} ${v.taskId} (${key}, due ${this.rel(v.runAt)}): ${v.detail}`];
    if (v.calls.length > 0) lines.push(`    calls: ${v.calls.map((c) => this.call(c)).join(' | ')}`);
    lines.push(
      `    row: ${v.row ? `${v.row.status}, attempts ${v.row.attempts}${v.row.error ? `, ${v.row.error}` : ''} (read ${this.rel(v.row.readAt)})` : 'none'}`,
    );
    if (eventsShown && v.events.length > 0) lines.push('    (the same events as above)');
    else for (const e of v.events) lines.push(`    ${this.rel(e.at).padStart(9)}  ${this.event(e)}`);
    return lines;
  }

  private call(c: SinkCall): string {
    const end = c.endedAt === null ? 'open' : this.rel(c.endedAt);
    const answer = c.status === null ? 'no answer' : `${c.status}${c.written ? '' : ' (not written)'}`;
    const who = c.pid === null ? '?' : (this.nameOf.get(c.pid) ?? String(c.pid));
    return `#${c.attempt} ${this.rel(c.arrivedAt)}→${end} ${answer} from ${who} ${c.path}`;
  }

  event(e: JournalEvent): string {
    switch (e.kind) {
      case 'proc.signal':
        return `${e.signal} ${e.name} (pid ${e.pid})`;
      case 'proc.exit':
        return `${e.name} exited (${e.signal ?? `code ${e.code}`})${e.expected ? '' : ' — unasked'}`;
      case 'proc.start':
        return `${e.name} starting (pid ${e.pid})`;
      case 'proc.ready':
        return `${e.name} up`;
      case 'mysql.cut':
      case 'mysql.restore':
        return `${e.kind} for ${e.slots.map((s) => `p${s}`).join(',')}`;
      case 'redis.loss':
        return `Redis lost ${e.keys} keys`;
      case 'sink.phase':
        return `sink ${e.mode}${e.mode === 'slow' ? ` ${e.delayMs} ms` : ''}`;
      case 'timer.define':
        return `${e.cause} ${e.key} (timer ${e.timerId}, sent ${this.rel(e.sentAt)}): ${defText(e.def)}`;
      case 'timer.delete':
        return `delete ${e.key} (timer ${e.timerId}, sent ${this.rel(e.sentAt)})`;
      case 'api.error':
        return `${e.op} ${e.key} failed (sent ${this.rel(e.sentAt)}): ${e.error}`;
      case 'skip':
        return `skipped ${e.action}: ${e.why}`;
      default:
        return e.kind;
    }
  }
}

function sameEvents(v: Violation, before: Violation | undefined): boolean {
  return (
    before !== undefined &&
    before.events.length === v.events.length &&
    before.events.every((e, i) => e === v.events[i])
  );
}

function defText(d: Extract<JournalEvent, { kind: 'timer.define' }>['def']): string {
  const when =
    d.atMs !== null ? `at ${new Date(d.atMs).toISOString()}` : `every ${d.periodMs} ms +${d.offsetMs}`;
  const end = d.endAtMs === null ? '' : ` until ${new Date(d.endAtMs).toISOString()}`;
  return `${d.active ? 'active' : 'inactive'}, ${when}${end}, ${d.path}`;
}
