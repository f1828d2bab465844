/**
 * The chaos run's checker: pure, over the journal, the sink's log of calls and the final
 * rows of MySQL's `tasks`. It goes over every run a timer owed and every call the sink
 * received, and returns what broke a promise of docs/delivery.md.
 *
 * A run is owed when its instant falls on the schedule of the definition in force, with
 * the timer active; instants within `editToleranceMs` of a change to the timer may go
 * either way (a change lands somewhere between its request and its answer), but must not
 * be doubled. Each owed run must end delivered once (a 2xx written back to the caller),
 * or delivered again with the same task id only after a takeover (the process that made
 * the acknowledged call was SIGKILLed, crashed, or was SIGSTOPped past its lease, or
 * Redis lost the claim around the call), or be recorded in MySQL with a reason.
 */
import type { EventOf, JournalEvent } from './journal.js';
import { instantsBetween, onSchedule, type TimerDef } from './timer-def.js';

/** One call as the sink received it. */
export interface SinkCall {
  taskId: string;
  timerId: number;
  attempt: number;
  path: string;
  arrivedAt: number;
  /** When the exchange ended: the answer went out, or the caller hung up (null: still open). */
  endedAt: number | null;
  /** The status the sink answered with (null: it never answered). */
  status: number | null;
  /** The answer was handed to the connection in full, not cut by the caller hanging up. */
  written: boolean;
  /** The process whose connection carried the call (null: not found). */
  pid: number | null;
}

/** One row of `tasks`. */
export interface RunRow {
  timerId: number;
  runAt: number;
  status: string;
  attempts: number;
  error: string | null;
  /** When it was read: at the end, or just before its timer was deleted. */
  readAt: number;
}

export interface CheckSettings {
  /** Runs due before this are judged: everything had been restored by then. */
  checkUntil: number;
  /** Instants this close to a change of their timer may go either way. */
  editToleranceMs: number;
  /** A call this close to a disable or delete may still go out. */
  disableToleranceMs: number;
  /** How long a claim lasts without renewal, and how often its owner renews it. */
  leaseMs: number;
  heartbeatMs: number;
  /** A 2xx written this close to the caller's deadline may have come too late for it. */
  deadlineRaceMs: number;
  /** A call's claim is finished this soon after its answer: a kill, freeze or Redis loss later is no takeover. */
  inFlightSlackMs: number;
  /** A run still pending or running this long after its due time has been left behind. */
  pendingGraceMs: number;
}

export const DEFAULT_CHECK_SETTINGS: Omit<CheckSettings, 'checkUntil'> = {
  editToleranceMs: 2000,
  disableToleranceMs: 1000,
  leaseMs: 10_000,
  heartbeatMs: 2000,
  deadlineRaceMs: 500,
  inFlightSlackMs: 2000,
  pendingGraceMs: 90_000,
};

export const VIOLATION_KINDS = [
  /** Owed, never called, and not recorded with a reason. */
  'missing',
  /** Called again after a 2xx was written back, with no takeover in between. */
  'duplicate',
  /** Left pending or running. */
  'pending',
  /** Called while its timer was disabled or deleted. */
  'called-while-disabled',
  /** Called though its timer never owed it (off the schedule in force, or while inactive). */
  'not-owed',
  /** The attempt numbers the calls carried do not count the calls (1, 2, … each once). */
  'attempts',
  /** Recorded missed, skipped or failed without an error. */
  'no-reason',
  /** Called, never acknowledged, and ended with retries left while its timer stayed active. */
  'retries-dropped',
  /** A call cut off by its caller before its deadline, the caller not killed: a shutdown cutting it. */
  'cut-off',
  /** MySQL's outcome contradicts the calls the sink saw. */
  'record-mismatch',
  /** The first call went to a callback no definition in force had. */
  'stale-callback',
] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export interface Violation {
  kind: ViolationKind;
  taskId: string;
  timerId: number;
  runAt: number;
  detail: string;
  calls: SinkCall[];
  row: RunRow | null;
  /** The journal's events around the run: faults, and the timer's own changes. */
  events: JournalEvent[];
}

export interface CheckResult {
  owed: number;
  /** Owed runs acknowledged once. */
  deliveredOnce: number;
  /** Owed runs acknowledged more than once, each repeat after a takeover. */
  redelivered: number;
  /** Owed runs not delivered and recorded with a reason, by status. */
  recorded: Record<string, number>;
  /** Runs within the tolerance of a change: either way was right. */
  either: number;
  /** Owed runs whose timer was deleted before they settled. */
  unjudged: number;
  calls: number;
  /** Owed runs that took more than one call (retries, takeovers). */
  retried: number;
  /** Second holders' calls (after an acknowledged call, or beside an open one) that a takeover explains. */
  takeovers: number;
  violations: Violation[];
}

export interface CheckInput {
  journal: readonly JournalEvent[];
  calls: readonly SinkCall[];
  /** The final rows, and those read just before their timer was deleted. */
  rows: readonly RunRow[];
  settings: CheckSettings;
}

/** A change to a timer: its definition from `at` on (null: deleted), sent at `sentAt`. */
interface Change {
  sentAt: number;
  at: number;
  def: TimerDef | null;
}

/** A span in which the timer's definition is uncertain: instants in it may go either way. */
interface Zone {
  from: number;
  to: number;
}

const FINAL_WITH_REASON = new Set(['missed', 'skipped', 'failed']);
const UNSETTLED = new Set(['pending', 'running']);
const FAULT_KINDS = new Set<JournalEvent['kind']>([
  'proc.signal',
  'proc.exit',
  'proc.ready',
  'mysql.cut',
  'mysql.restore',
  'redis.loss',
  'sink.phase',
]);

/** How a call ended, seen from its caller. */
type Ending = 'acked' | 'failed' | 'timed-out' | 'open' | 'cut';

const acked = (c: SinkCall) => c.written && c.status !== null && c.status >= 200 && c.status < 300;

const runAtOf = (c: SinkCall) => Number(c.taskId.split('_')[1]);

export function taskIdOf(timerId: number, runAt: number): string {
  return `${timerId}_${runAt}`;
}

/** Judges every run of every timer in the journal. */
export function check(input: CheckInput): CheckResult {
  return new Checker(input).run();
}

class Checker {
  private readonly s: CheckSettings;
  private readonly changes = new Map<number, Change[]>();
  private readonly zones = new Map<number, Zone[]>();
  private readonly callsByTask = new Map<string, SinkCall[]>();
  private readonly rowsByTask = new Map<string, RunRow>();
  private readonly nameOfPid = new Map<number, string>();
  /** The start of the chaos window, if the journal has one: times are told from it. */
  private readonly origin: number | undefined;
  /** Per timer, the instants it was called or recorded for. */
  private readonly seen = new Map<number, number[]>();
  private readonly result: CheckResult = {
    owed: 0,
    deliveredOnce: 0,
    redelivered: 0,
    recorded: {},
    either: 0,
    unjudged: 0,
    calls: 0,
    retried: 0,
    takeovers: 0,
    violations: [],
  };

  constructor(private readonly input: CheckInput) {
    this.s = input.settings;
    this.origin = input.journal.find((e) => e.kind === 'chaos.start')?.at;
    this.readTimeline();
    for (const c of input.calls) {
      const list = this.callsByTask.get(c.taskId) ?? [];
      list.push(c);
      this.callsByTask.set(c.taskId, list);
    }
    for (const list of this.callsByTask.values()) list.sort((a, b) => a.arrivedAt - b.arrivedAt);
    // A row read at the end wins over one read before a delete (there is none then anyway).
    for (const r of [...input.rows].sort((a, b) => a.readAt - b.readAt)) {
      this.rowsByTask.set(taskIdOf(r.timerId, r.runAt), r);
    }
    for (const e of input.journal) if (e.kind === 'proc.start') this.nameOfPid.set(e.pid, e.name);
    const see = (timerId: number, runAt: number) => {
      const list = this.seen.get(timerId) ?? [];
      list.push(runAt);
      this.seen.set(timerId, list);
    };
    for (const c of input.calls) see(c.timerId, runAtOf(c));
    for (const r of input.rows) if (r.runAt < this.s.checkUntil) see(r.timerId, r.runAt);
  }

  run(): CheckResult {
    this.result.calls = this.input.calls.length;
    const timerIds = new Set<number>([...this.changes.keys(), ...this.seen.keys()]);
    for (const timerId of [...timerIds].sort((a, b) => a - b)) {
      for (const runAt of this.instantsToJudge(timerId)) this.judge(timerId, runAt);
    }
    this.result.violations.sort((a, b) => a.runAt - b.runAt || a.taskId.localeCompare(b.taskId));
    return this.result;
  }

  private readTimeline(): void {
    const tol = this.s.editToleranceMs;
    const events = [...this.input.journal].sort((a, b) => a.at - b.at);
    for (const e of events) {
      if (e.kind !== 'timer.define' && e.kind !== 'timer.delete') continue;
      const list = this.changes.get(e.timerId) ?? [];
      list.push({ sentAt: e.sentAt, at: e.at, def: e.kind === 'timer.define' ? e.def : null });
      this.changes.set(e.timerId, list);
      this.zoneOf(e.timerId).push({ from: e.sentAt - tol, to: e.at + tol });
    }
    // A change whose answer never came may have landed: uncertain until the next look.
    for (const e of events) {
      if (e.kind !== 'api.error') continue;
      const timerId = this.timerIdOfKey(e.key);
      if (timerId === undefined) continue;
      const next = (this.changes.get(timerId) ?? []).find((c) => c.at >= e.at);
      this.zoneOf(timerId).push({
        from: e.sentAt - tol,
        to: next ? next.at + tol : Number.POSITIVE_INFINITY,
      });
    }
  }

  private timerIdOfKey(key: string): number | undefined {
    for (const e of this.input.journal) {
      if ((e.kind === 'timer.define' || e.kind === 'timer.delete') && e.key === key) return e.timerId;
    }
    return undefined;
  }

  private zoneOf(timerId: number): Zone[] {
    let list = this.zones.get(timerId);
    if (!list) {
      list = [];
      this.zones.set(timerId, list);
    }
    return list;
  }

  /** Every instant the timer's definitions had before checkUntil, and every one it was called or recorded for. */
  private instantsToJudge(timerId: number): number[] {
    const instants = new Set<number>();
    const changes = this.changes.get(timerId) ?? [];
    const from = (changes[0]?.sentAt ?? 0) - this.s.editToleranceMs;
    for (const c of changes) {
      if (c.def) for (const t of instantsBetween(c.def, from, this.s.checkUntil)) instants.add(t);
    }
    for (const t of this.seen.get(timerId) ?? []) instants.add(t);
    return [...instants].sort((a, b) => a - b);
  }

  /** The definition in force at `t`: null once deleted, undefined before the timer existed. */
  private defAt(timerId: number, t: number): TimerDef | null | undefined {
    let def: TimerDef | null | undefined;
    for (const c of this.changes.get(timerId) ?? []) if (c.at <= t) def = c.def;
    return def;
  }

  private inZone(timerId: number, t: number): boolean {
    return (this.zones.get(timerId) ?? []).some((z) => t >= z.from && t <= z.to);
  }

  private deleted(timerId: number): boolean {
    return (this.changes.get(timerId) ?? []).some((c) => c.def === null);
  }

  private judge(timerId: number, runAt: number): void {
    const taskId = taskIdOf(timerId, runAt);
    const calls = this.callsByTask.get(taskId) ?? [];
    const row = this.rowsByTask.get(taskId) ?? null;
    const def = this.defAt(timerId, runAt);
    const owes = !!def && def.active && onSchedule(def, runAt);
    const judged = runAt < this.s.checkUntil;
    const standing = this.inZone(timerId, runAt) ? 'either' : owes ? 'owed' : 'not-owed';
    const flag = (kind: ViolationKind, detail: string) => this.flag(kind, timerId, runAt, detail, calls, row);
    const flaggedBefore = this.result.violations.length;

    // A repeat that is a duplicate says its attempt numbers already.
    if (!this.checkRepeats(timerId, calls, flag)) this.checkAttempts(runAt, calls, flag);
    const whileDisabled = calls.find((c) => this.disabledAt(timerId, c.arrivedAt));
    if (whileDisabled) {
      const change = this.disabledAt(timerId, whileDisabled.arrivedAt)!;
      flag(
        'called-while-disabled',
        `attempt ${whileDisabled.attempt} arrived ${secs(whileDisabled.arrivedAt - change.at)} after its timer was ${change.def ? 'disabled' : 'deleted'}`,
      );
    } else if (standing === 'not-owed' && calls.length > 0) {
      flag('not-owed', `called ${calls.length}× though ${this.whyNotOwed(def, runAt)}`);
    }
    if (standing !== 'not-owed' && calls[0]) this.checkCallback(timerId, runAt, calls[0], flag);
    if (row && judged) this.checkRow(row, flag);
    if (!judged) return;
    if (standing === 'owed') {
      const outcome = this.outcome(timerId, def!, calls, row, flag);
      // A run with a violation counts only there.
      this.tally(this.result.violations.length > flaggedBefore ? null : outcome, calls);
    } else if (standing === 'either') {
      this.result.either++;
      // Near a change a run may go either way; but once called, it keeps its retries.
      if (calls.length > 0 && def) this.outcome(timerId, def, calls, row, flag);
    }
  }

  private checkAttempts(runAt: number, calls: SinkCall[], flag: (k: ViolationKind, d: string) => void): void {
    const attempts = calls.map((c) => c.attempt).sort((a, b) => a - b);
    if (!attempts.some((a, i) => a !== i + 1)) return;
    const first = calls[0]!;
    // A holder notes its call just before sending it: one killed in between leaves a gap
    // (docs/delivery.md says so), one per death, never a repeat.
    const gap = attempts[0]! - 1;
    const consecutive = attempts.every((a, i) => a === gap + i + 1);
    const deaths = this.input.journal.filter(
      (e) =>
        e.at >= runAt - 1000 &&
        e.at <= first.arrivedAt &&
        ((e.kind === 'proc.signal' && e.signal === 'SIGKILL') || (e.kind === 'proc.exit' && !e.expected)),
    ).length;
    if (consecutive && deaths >= gap) return;
    // A first call numbered past 1: say which holder took an attempt and made no call.
    const lost =
      first.attempt > 1
        ? this.input.journal.find(
            (e) =>
              e.at >= runAt - 5000 &&
              e.at <= first.arrivedAt &&
              ((e.kind === 'proc.signal' && e.signal !== 'SIGCONT') ||
                (e.kind === 'proc.exit' && !e.expected) ||
                e.kind === 'redis.loss'),
          )
        : undefined;
    flag(
      'attempts',
      `${calls.length} call(s) carried attempt ${calls.map((c) => c.attempt).join(', ')} (in arrival order); ` +
        `expected 1…${calls.length}${lost ? `; before the first call: ${this.describeFault(lost)}` : ''}`,
    );
  }

  /**
   * How a call ended for its caller: acknowledged, failed (a non-2xx answer), timed out
   * (no 2xx before its deadline), still open when `nextArrival` came, or cut off early by
   * the caller itself.
   */
  private ending(timerId: number, calls: SinkCall[], i: number): Ending {
    const c = calls[i]!;
    const nextArrival = calls[i + 1]?.arrivedAt;
    if (acked(c)) return this.raced(timerId, c) ? 'timed-out' : 'acked';
    // The caller's hang-up reaches the sink a moment after the caller gave up.
    if (c.endedAt === null || (nextArrival !== undefined && c.endedAt - 100 > nextArrival)) return 'open';
    if (c.written && c.status !== null) return 'failed';
    // The deadline runs from the call's start, which may be well before its request arrived
    // (a connection to open): no earlier than the run's due time, or the previous call's end.
    const earliestStart = Math.max(runAtOf(c), calls[i - 1]?.endedAt ?? 0);
    const def = this.defAt(timerId, c.arrivedAt);
    if (def && c.endedAt - Math.min(earliestStart, c.arrivedAt) >= def.timeoutMs - this.s.deadlineRaceMs) {
      return 'timed-out';
    }
    return 'cut';
  }

  /**
   * A call after one the receiver acknowledged, or got and never saw fail (still open, or
   * cut off by its caller), is a second holder calling: it needs a takeover between them.
   * The last call cut off by a caller that was not killed was cut by xtimer itself (a
   * shutdown must let its calls finish). True if a duplicate was flagged.
   */
  private checkRepeats(
    timerId: number,
    calls: SinkCall[],
    flag: (k: ViolationKind, d: string) => void,
  ): boolean {
    for (let i = 0; i < calls.length - 1; i++) {
      const first = calls[i]!;
      const repeat = calls[i + 1]!;
      const how = this.ending(timerId, calls, i);
      if (how === 'failed' || how === 'timed-out') continue;
      if (this.takeover(first, repeat)) {
        this.result.takeovers++;
        continue;
      }
      const before =
        how === 'acked'
          ? `attempt ${first.attempt} was answered ${first.status} at ${this.when(first.endedAt!)}`
          : how === 'open'
            ? `attempt ${first.attempt} was still open`
            : `attempt ${first.attempt} was cut off by its caller ${this.cutText(timerId, first)}`;
      flag(
        'duplicate',
        `${before} (${this.who(first.pid)}), then attempt ${repeat.attempt} arrived ${secs(repeat.arrivedAt - first.arrivedAt)} ` +
          `after it (${this.who(repeat.pid)}); no SIGKILL, crash or long SIGSTOP of ${this.who(first.pid)}, ` +
          `nor Redis loss, while it held the run (to ${secs(this.s.inFlightSlackMs)} past its answer)`,
      );
      return true;
    }
    const last = calls[calls.length - 1];
    if (last && this.ending(timerId, calls, calls.length - 1) === 'cut' && !this.killedDuring(last)) {
      flag('cut-off', `attempt ${last.attempt} was cut off by its caller ${this.cutText(timerId, last)}`);
    }
    return false;
  }

  /** After how long a call was cut, against its deadline, and the SIGTERM that came before, if one did. */
  private cutText(timerId: number, c: SinkCall): string {
    const timeout = this.defAt(timerId, c.arrivedAt)?.timeoutMs;
    const sigterm = this.input.journal.find(
      (e) =>
        e.kind === 'proc.signal' &&
        e.signal === 'SIGTERM' &&
        e.pid === c.pid &&
        e.at <= (c.endedAt ?? c.arrivedAt) &&
        e.at >= c.arrivedAt - 60_000,
    );
    return (
      `after ${secs((c.endedAt ?? c.arrivedAt) - c.arrivedAt)}${timeout ? `, before its ${secs(timeout)} deadline` : ''}` +
      (sigterm
        ? `, ${secs((c.endedAt ?? c.arrivedAt) - sigterm.at)} after a SIGTERM to ${this.who(c.pid)}`
        : '')
    );
  }

  /** Whether the caller was killed (or crashed) while the call was open: that closes its connections. */
  private killedDuring(c: SinkCall): boolean {
    const until = (c.endedAt ?? c.arrivedAt) + 1000;
    return this.input.journal.some(
      (e) =>
        e.at >= c.arrivedAt - 200 &&
        e.at <= until &&
        (c.pid === null || ('pid' in e && e.pid === c.pid)) &&
        ((e.kind === 'proc.signal' && e.signal === 'SIGKILL') || (e.kind === 'proc.exit' && !e.expected)),
    );
  }

  /** What explains a second holder's call after `first`, or null. */
  private takeover(first: SinkCall, repeat: SinkCall): string | null {
    // A request already on the wire arrives after its sender stopped; allow it that long.
    const from = first.arrivedAt - 200;
    // The run is its caller's from the claim (ahead of the call) until the claim is finished,
    // just after the answer: a fault after that takes nothing over.
    const heldUntil = Math.min(
      repeat.arrivedAt,
      (first.endedAt ?? repeat.arrivedAt) + this.s.inFlightSlackMs,
    );
    const sameProc = (pid: number) => first.pid === null || pid === first.pid;
    for (const e of this.input.journal) {
      if (e.at < from || e.at > heldUntil) continue;
      if (e.kind === 'proc.signal' && e.signal === 'SIGKILL' && sameProc(e.pid))
        return `SIGKILL of ${e.name}`;
      if (e.kind === 'proc.exit' && !e.expected && sameProc(e.pid)) return `${e.name} crashed`;
      if (e.kind === 'proc.signal' && e.signal === 'SIGSTOP' && sameProc(e.pid)) {
        const cont = this.input.journal.find(
          (c) => c.kind === 'proc.signal' && c.signal === 'SIGCONT' && c.pid === e.pid && c.at >= e.at,
        );
        const stoppedFor = (cont?.at ?? repeat.arrivedAt) - e.at;
        if (stoppedFor >= this.s.leaseMs - this.s.heartbeatMs)
          return `SIGSTOP of ${e.name} for ${secs(stoppedFor)}`;
      }
    }
    const loss = this.input.journal.find(
      (e) => e.kind === 'redis.loss' && e.at + e.ms >= first.arrivedAt - 5000 && e.at <= heldUntil,
    );
    return loss ? 'Redis lost its keys around the call' : this.outcomeLost(first);
  }

  /**
   * The limit docs/delivery.md states: a call's outcome lives only in its
   * caller and Redis while MySQL is cut off from the caller; Redis losing its keys and the
   * caller dying, both before MySQL came back, lose it, and the run may be called again
   * or settled by its misfire policy. Null unless all three happened.
   */
  private outcomeLost(c: SinkCall): string | null {
    if (c.pid === null) return null;
    const events = this.input.journal;
    const slot = events.find(
      (e): e is EventOf<'proc.start'> => e.kind === 'proc.start' && e.pid === c.pid,
    )?.slot;
    if (slot === undefined) return null;
    const answeredAt = c.endedAt ?? c.arrivedAt;
    const cut = events.findLast(
      (e): e is EventOf<'mysql.cut'> =>
        e.kind === 'mysql.cut' && e.slots.includes(slot) && e.at <= answeredAt,
    );
    if (!cut) return null;
    const restoredAt =
      events.find((e) => e.kind === 'mysql.restore' && e.slots.includes(slot) && e.at > cut.at)?.at ??
      Number.POSITIVE_INFINITY;
    if (restoredAt < answeredAt) return null;
    const within = (e: JournalEvent) => e.at >= c.arrivedAt - 200 && e.at <= restoredAt;
    const loss = events.some((e) => e.kind === 'redis.loss' && within(e));
    const death = events.some(
      (e) =>
        within(e) &&
        'pid' in e &&
        e.pid === c.pid &&
        ((e.kind === 'proc.signal' && e.signal === 'SIGKILL') || (e.kind === 'proc.exit' && !e.expected)),
    );
    return loss && death
      ? `its outcome was lost: MySQL was cut off from ${this.who(c.pid)}, then Redis lost its keys and the caller died before MySQL came back`
      : null;
  }

  /** The disable or delete a call at `at` came after (beyond the tolerance), or null. */
  private disabledAt(timerId: number, at: number): Change | null {
    const changes = this.changes.get(timerId) ?? [];
    const tol = this.s.disableToleranceMs;
    const before = changes.filter((c) => c.at + tol < at).at(-1);
    if (!before || before.def?.active) return null;
    // An enable on its way counts from when it was sent.
    const reenabling = changes.some((c) => c.at > before.at && c.sentAt - tol <= at && c.def?.active);
    return reenabling ? null : before;
  }

  private whyNotOwed(def: TimerDef | null | undefined, runAt: number): string {
    if (def === undefined) return 'the timer did not exist yet';
    if (def === null) return 'the timer was deleted';
    if (!def.active) return 'the timer was disabled at its instant';
    if (def.endAtMs !== null && runAt >= def.endAtMs)
      return `its instant is past the timer's endAt (${this.when(def.endAtMs)})`;
    return 'its instant is not on the schedule in force';
  }

  /** The first call goes to the callback of a definition in force between the due time and the call. */
  private checkCallback(
    timerId: number,
    runAt: number,
    call: SinkCall,
    flag: (k: ViolationKind, d: string) => void,
  ): void {
    const tol = this.s.editToleranceMs;
    const changes = this.changes.get(timerId) ?? [];
    const inForce = changes.filter((c, i) => {
      const until = changes[i + 1]?.at ?? Number.POSITIVE_INFINITY;
      return c.at <= call.arrivedAt + tol && until >= runAt - tol;
    });
    const paths = new Set(inForce.flatMap((c) => (c.def ? [c.def.path] : [])));
    if (paths.size > 0 && !paths.has(call.path)) {
      flag(
        'stale-callback',
        `called ${call.path}, while the definitions in force called ${[...paths].join(' or ')}`,
      );
    }
  }

  private checkRow(row: RunRow, flag: (k: ViolationKind, d: string) => void): void {
    if (UNSETTLED.has(row.status) && this.leftBehind(row)) {
      flag(
        'pending',
        `still ${row.status} ${secs(row.readAt - row.runAt)} after its due time (attempts ${row.attempts})`,
      );
    }
    if (FINAL_WITH_REASON.has(row.status) && !row.error)
      flag('no-reason', `recorded ${row.status} with no error`);
  }

  /**
   * How a called or owed run ended: delivered, or recorded with a reason (the tally's
   * name), or null when it broke a promise (flagged) or cannot be judged.
   */
  private outcome(
    timerId: number,
    def: TimerDef,
    calls: SinkCall[],
    row: RunRow | null,
    flag: (k: ViolationKind, d: string) => void,
  ): 'delivered' | 'redelivered' | 'unjudged' | `recorded ${string}` | null {
    const deleted = this.deleted(timerId);
    // Flagged by checkRow when left behind; else its timer was deleted before it settled.
    if (row && UNSETTLED.has(row.status)) return this.leftBehind(row) ? null : 'unjudged';
    const acks = calls.filter(acked);
    if (calls.length === 0) {
      if (!row) flag('missing', 'never called, and no row in MySQL');
      else if (row.status === 'succeeded') {
        flag('record-mismatch', 'recorded succeeded, but the receiver never got a call');
      } else return `recorded ${row.status}`;
      return null;
    }
    if (acks.length > 0) {
      const last = calls[calls.length - 1]!;
      if (!row && !deleted) flag('record-mismatch', 'delivered, but there is no row in MySQL');
      else if (row && (row.status === 'missed' || row.status === 'skipped') && !this.outcomeLost(acks[0]!)) {
        flag(
          'record-mismatch',
          `recorded ${row.status} (${row.error}) though attempt ${acks[0]!.attempt} was answered 2xx`,
        );
      } else if (row?.status === 'failed' && acked(last) && !this.raced(timerId, last)) {
        flag(
          'record-mismatch',
          `recorded failed (${row.error}) though its last call, attempt ${last.attempt}, was answered 2xx`,
        );
      } else return acks.length === 1 ? 'delivered' : 'redelivered';
      return null;
    }
    // Called, never acknowledged.
    if (!row) {
      if (deleted) return 'unjudged';
      flag('record-mismatch', `called ${calls.length}×, but there is no row in MySQL`);
      return null;
    }
    if (row.status === 'succeeded') {
      flag('record-mismatch', `recorded succeeded, but no 2xx reached the caller in ${calls.length} call(s)`);
      return null;
    }
    if (calls.length < def.maxAttempts && !this.stoppedAfter(timerId, calls[0]!.arrivedAt)) {
      flag(
        'retries-dropped',
        `recorded ${row.status} (${row.error}) after ${calls.length} of ${def.maxAttempts} attempts ` +
          `(calls carried attempt ${calls.map((c) => c.attempt).join(', ')}), its timer active throughout`,
      );
      return null;
    }
    return `recorded ${row.status}`;
  }

  private tally(outcome: ReturnType<Checker['outcome']>, calls: SinkCall[]): void {
    this.result.owed++;
    if (calls.length > 1) this.result.retried++;
    if (outcome === 'delivered') this.result.deliveredOnce++;
    else if (outcome === 'redelivered') this.result.redelivered++;
    else if (outcome === 'unjudged') this.result.unjudged++;
    else if (outcome !== null) {
      const status = outcome.slice('recorded '.length);
      this.result.recorded[status] = (this.result.recorded[status] ?? 0) + 1;
    }
  }

  /** Unsettled at the end (after the settle wait), or long past due when its timer was deleted. */
  private leftBehind(row: RunRow): boolean {
    return row.readAt >= this.s.checkUntil || row.readAt - row.runAt >= this.s.pendingGraceMs;
  }

  private raced(timerId: number, call: SinkCall): boolean {
    const def = this.defAt(timerId, call.arrivedAt);
    return (
      !!def && call.endedAt !== null && call.endedAt - call.arrivedAt >= def.timeoutMs - this.s.deadlineRaceMs
    );
  }

  /** Whether the timer was disabled or deleted after `t` (its retries may stop then). */
  private stoppedAfter(timerId: number, t: number): boolean {
    return (this.changes.get(timerId) ?? []).some(
      (c) => c.at >= t - this.s.editToleranceMs && !c.def?.active,
    );
  }

  /** A time as an offset from the start of the chaos window, when the journal has one. */
  private when(at: number): string {
    const origin = this.origin;
    if (origin === undefined) return new Date(at).toISOString().slice(11, 23);
    const s = (at - origin) / 1000;
    return `${s < 0 ? '' : '+'}${s.toFixed(1)} s`;
  }

  private describeFault(e: JournalEvent): string {
    if (e.kind === 'proc.signal') return `${e.signal} of ${e.name} at ${this.when(e.at)}`;
    if (e.kind === 'proc.exit') return `${e.name} crashed at ${this.when(e.at)}`;
    return `${e.kind} at ${this.when(e.at)}`;
  }

  private who(pid: number | null): string {
    if (pid === null) return 'an unknown process';
    return `${this.nameOfPid.get(pid) ?? 'pid'} (pid ${pid})`;
  }

  private flag(
    kind: ViolationKind,
    timerId: number,
    runAt: number,
    detail: string,
    calls: SinkCall[],
    row: RunRow | null,
  ): void {
    const until = Math.max(runAt, ...calls.map((c) => c.endedAt ?? c.arrivedAt));
    this.result.violations.push({
      kind,
      taskId: taskIdOf(timerId, runAt),
      timerId,
      runAt,
      detail,
      calls,
      row,
      events: relatedEvents(this.input.journal, timerId, runAt - 15_000, until + 5000),
    });
  }
}

/** The faults in [from, to], and the timer's own changes then. */
export function relatedEvents(
  journal: readonly JournalEvent[],
  timerId: number,
  from: number,
  to: number,
): JournalEvent[] {
  return journal.filter((e) => {
    if (e.at < from || e.at > to) return false;
    if (FAULT_KINDS.has(e.kind)) return true;
    return (e.kind === 'timer.define' || e.kind === 'timer.delete') && e.timerId === timerId;
  });
}

/** The journal's events of one kind, typed. */
export function eventsOf<K extends JournalEvent['kind']>(
  journal: readonly JournalEvent[],
  kind: K,
): EventOf<K>[] {
  return journal.filter((e): e is EventOf<K> => e.kind === kind);
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
