import { describe, expect, it } from 'vitest';
import {
  type CheckResult,
  check,
  DEFAULT_CHECK_SETTINGS,
  type RunRow,
  type SinkCall,
  taskIdOf,
} from '../../../../bench/chaos/checker.js';
import type { JournalEvent, Signal } from '../../../../bench/chaos/journal.js';
import type { TimerDef } from '../../../../bench/chaos/timer-def.js';

/**
 * The chaos checker over hand-made journals, sink logs and rows: it must catch each way a
 * run can go wrong, and accept each way a run may rightly be called more than once or
 * not at all.
 */

const T0 = 1_800_000_000_000;
const ID = 7;
const P1 = 101;
const P2 = 102;
const CHECK_UNTIL = T0 + 12_000;
/** Instants past the creation's tolerance and before checkUntil: T0+3 s … T0+11 s. */
const OWED = Array.from({ length: 9 }, (_, i) => T0 + 3000 + i * 1000);

function def(overrides: Partial<TimerDef> = {}): TimerDef {
  return {
    app: 'chaos',
    name: 't0',
    active: true,
    periodMs: 1000,
    offsetMs: 0,
    atMs: null,
    startAtMs: null,
    endAtMs: null,
    path: '/hook/t0/r0',
    timeoutMs: 5000,
    maxAttempts: 3,
    misfirePolicy: 'fire_once',
    misfireThresholdMs: 5000,
    overlapPolicy: 'allow',
    ...overrides,
  };
}

function created(at = T0, d: TimerDef = def()): JournalEvent {
  return { kind: 'timer.define', at, sentAt: at - 100, timerId: ID, key: 't0', cause: 'create', def: d };
}

function started(name: string, pid: number, at = T0 - 10_000): JournalEvent {
  return { kind: 'proc.start', at, slot: pid - P1, name, pid };
}

function signal(pid: number, sig: Signal, at: number): JournalEvent {
  return { kind: 'proc.signal', at, slot: pid - P1, name: pid === P1 ? 'p0.0' : 'p1.0', pid, signal: sig };
}

/** A call acknowledged 20 ms after it arrived, 5 ms after its due time. */
function call(runAt: number, overrides: Partial<SinkCall> = {}): SinkCall {
  const arrivedAt = overrides.arrivedAt ?? runAt + 5;
  return {
    taskId: taskIdOf(ID, runAt),
    timerId: ID,
    attempt: 1,
    path: '/hook/t0/r0',
    arrivedAt,
    endedAt: arrivedAt + 20,
    status: 200,
    written: true,
    pid: P1,
    ...overrides,
  };
}

function row(runAt: number, overrides: Partial<RunRow> = {}): RunRow {
  return {
    timerId: ID,
    runAt,
    status: 'succeeded',
    attempts: 1,
    error: null,
    readAt: CHECK_UNTIL + 30_000,
    ...overrides,
  };
}

interface Scenario {
  journal?: JournalEvent[];
  calls?: SinkCall[];
  rows?: RunRow[];
}

/** Every owed run delivered once and recorded succeeded, then the scenario's changes on top. */
function run({ journal = [], calls, rows }: Scenario = {}): CheckResult {
  return check({
    journal: [started('p0.0', P1), started('p1.0', P2), created(), ...journal],
    calls: calls ?? OWED.map((t) => call(t)),
    rows: rows ?? OWED.map((t) => row(t)),
    settings: { ...DEFAULT_CHECK_SETTINGS, checkUntil: CHECK_UNTIL },
  });
}

const kinds = (r: CheckResult) => r.violations.map((v) => `${v.kind} ${v.taskId}`);
const at = (i: number) => OWED[i]!;
const without = <T extends { runAt?: number; taskId?: string }>(items: T[], runAt: number) =>
  items.filter((x) => x.runAt !== runAt && x.taskId !== taskIdOf(ID, runAt));

describe('chaos checker', () => {
  it('accepts every owed run delivered once, and counts them', () => {
    const result = run();
    expect(result.violations).toEqual([]);
    expect(result.owed).toBe(OWED.length);
    expect(result.deliveredOnce).toBe(OWED.length);
  });

  it('catches an owed run never called and not recorded', () => {
    const result = run({
      calls: without(
        OWED.map((t) => call(t)),
        at(2),
      ),
      rows: without(
        OWED.map((t) => row(t)),
        at(2),
      ),
    });
    expect(kinds(result)).toEqual([`missing ${taskIdOf(ID, at(2))}`]);
  });

  it('catches a run left pending or running, whatever its instant', () => {
    const rows = OWED.map((t) => row(t));
    rows[1] = row(at(1), { status: 'pending', attempts: 0 });
    rows[4] = row(at(4), { status: 'running' });
    const calls = without(
      OWED.map((t) => call(t)),
      at(1),
    );
    expect(kinds(run({ calls, rows }))).toEqual([
      `pending ${taskIdOf(ID, at(1))}`,
      `pending ${taskIdOf(ID, at(4))}`,
    ]);
  });

  it('catches a second acknowledged call with no takeover between, a SIGTERM included', () => {
    const repeat = call(at(3), { attempt: 2, arrivedAt: at(3) + 12_000, pid: P2 });
    const calls = [...OWED.map((t) => call(t)), repeat];
    expect(kinds(run({ calls }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
    // A SIGTERM is no takeover: a stopping process must finish its calls.
    const sigterm = signal(P1, 'SIGTERM', at(3) + 1000);
    expect(kinds(run({ calls, journal: [sigterm] }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
    // Nor is the death of another process than the caller.
    const otherKilled = signal(P2, 'SIGKILL', at(3) + 1000);
    expect(kinds(run({ calls, journal: [otherKilled] }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
    // Nor killing the caller after the answer was in and the claim finished.
    const killedLater = signal(P1, 'SIGKILL', at(3) + 8000);
    expect(kinds(run({ calls, journal: [killedLater] }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
    // Nor Redis losing its keys after the answer was in and the claim finished.
    const lossAfter = { kind: 'redis.loss', at: at(3) + 5000, keys: 120, ms: 300 } as JournalEvent;
    expect(kinds(run({ calls, journal: [lossAfter] }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
    // Nor a freeze shorter than the lease.
    const shortStop = [signal(P1, 'SIGSTOP', at(3) + 100), signal(P1, 'SIGCONT', at(3) + 3100)];
    expect(kinds(run({ calls, journal: shortStop }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
  });

  it('accepts a repeat, or a missed record, once the outcome was lost with MySQL cut off, Redis lost and the caller killed', () => {
    const repeat = call(at(3), { attempt: 2, arrivedAt: at(3) + 12_000, pid: P2 });
    const calls = [...OWED.map((t) => call(t)), repeat];
    const cut = { kind: 'mysql.cut', at: at(3) - 2000, slots: [0] } as JournalEvent;
    const loss = { kind: 'redis.loss', at: at(3) + 5000, keys: 120, ms: 300 } as JournalEvent;
    const killed = signal(P1, 'SIGKILL', at(3) + 6000);
    const restore = { kind: 'mysql.restore', at: at(3) + 9000, slots: [0] } as JournalEvent;
    expect(kinds(run({ calls, journal: [cut, loss, killed, restore] }))).toEqual([]);
    const missed = OWED.map((t) =>
      t === at(3) ? row(t, { status: 'missed', error: 'missed: late' }) : row(t),
    );
    expect(kinds(run({ rows: missed, journal: [cut, loss, killed, restore] }))).toEqual([]);
    // Any one of the three alone leaves the outcome somewhere: the repeat is a duplicate.
    for (const journal of [
      [cut, loss, restore],
      [cut, killed, restore],
      [loss, killed],
      [cut, { ...restore, at: at(3) + 1000 }, loss, killed],
    ]) {
      expect(kinds(run({ calls, journal }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
    }
  });

  it('catches a second holder calling while the first call is still open', () => {
    const hanging = call(at(3), { endedAt: null, status: null, written: false });
    const second = call(at(3), { attempt: 2, arrivedAt: at(3) + 3000, pid: P2 });
    const calls = [
      ...without(
        OWED.map((t) => call(t)),
        at(3),
      ),
      hanging,
      second,
    ];
    expect(kinds(run({ calls }))).toEqual([`duplicate ${taskIdOf(ID, at(3))}`]);
  });

  it('catches a call its caller cut off before the deadline, at a SIGTERM, whether it is called again or not', () => {
    const sigterm = signal(P1, 'SIGTERM', at(3) + 1000);
    const exit = {
      kind: 'proc.exit',
      at: at(3) + 10_005,
      slot: 0,
      name: 'p0.0',
      pid: P1,
      code: 0,
      signal: null,
      expected: true,
    } as JournalEvent;
    // A receiver taking 20 s (timeout 25 s) sees the connection close 10 s in.
    const cut = call(at(3), { endedAt: at(3) + 10_010, status: null, written: false });
    const slow = OWED.map((t) => (t === at(3) ? cut : call(t)));
    const timers = [created(T0, def({ timeoutMs: 25_000, maxAttempts: 1 }))];
    const rows = OWED.map((t) => (t === at(3) ? row(t, { status: 'failed', error: 'aborted' }) : row(t)));
    expect(kinds(run({ calls: slow, rows, journal: [...timers, sigterm, exit] }))).toEqual([
      `cut-off ${taskIdOf(ID, at(3))}`,
    ]);
    const retaken = call(at(3), { attempt: 2, arrivedAt: at(3) + 21_000, pid: P2 });
    expect(kinds(run({ calls: [...slow, retaken], journal: [...timers, sigterm, exit] }))).toEqual([
      `duplicate ${taskIdOf(ID, at(3))}`,
    ]);
    // Cut by a SIGKILL, the call is the dead caller's: taken over, not doubled.
    const killed = [...timers, signal(P1, 'SIGKILL', at(3) + 10_000)];
    const result = run({ calls: [...slow, retaken], journal: killed });
    expect(result.violations).toEqual([]);
    expect(result.takeovers).toBe(1);
  });

  it.each([
    ['a SIGKILL of the caller', [signal(P1, 'SIGKILL', at(3) + 10)]],
    [
      'a SIGSTOP of the caller past its lease',
      [signal(P1, 'SIGSTOP', at(3) + 10), signal(P1, 'SIGCONT', at(3) + 20_010)],
    ],
    ['a SIGSTOP of the caller not yet continued', [signal(P1, 'SIGSTOP', at(3) + 10)]],
    [
      'Redis losing its keys (a scan under way since before the call) while the call was in flight',
      [{ kind: 'redis.loss', at: at(3) - 8000, keys: 120, ms: 8100 } as JournalEvent],
    ],
    [
      'a crash of the caller',
      [
        {
          kind: 'proc.exit',
          at: at(3) + 50,
          slot: 0,
          name: 'p0.0',
          pid: P1,
          code: 1,
          signal: null,
          expected: false,
        } as JournalEvent,
      ],
    ],
  ])('accepts a repeat with a higher attempt after %s', (_, journal) => {
    const repeat = call(at(3), { attempt: 2, arrivedAt: at(3) + 12_000, pid: P2 });
    const result = run({ calls: [...OWED.map((t) => call(t)), repeat], journal });
    expect(result.violations).toEqual([]);
    expect(result.takeovers).toBe(1);
    expect(result.redelivered).toBe(1);
  });

  it('accepts a repeat after a 2xx written only at the caller’s deadline', () => {
    const late = call(at(3), { arrivedAt: at(3) + 5, endedAt: at(3) + 5 + 4900 });
    const retry = call(at(3), { attempt: 2, arrivedAt: at(3) + 5600, pid: P1 });
    const calls = [
      ...without(
        OWED.map((t) => call(t)),
        at(3),
      ),
      late,
      retry,
    ];
    expect(run({ calls }).violations).toEqual([]);
  });

  it('catches a call arriving while its timer was disabled, and allows the second around the disable', () => {
    const disabled: JournalEvent = {
      kind: 'timer.define',
      at: at(3) + 500,
      sentAt: at(3) + 400,
      timerId: ID,
      key: 't0',
      cause: 'disable',
      def: def({ active: false }),
    };
    const owedBefore = OWED.filter((t) => t <= at(3));
    const rows = owedBefore.map((t) => row(t));
    // A retry of a run due before the disable, 3 s after it: retries stop at a disable.
    const retry = call(at(1), { attempt: 2, arrivedAt: at(3) + 3500 });
    const failed = call(at(1), { status: 500 });
    const calls = [
      ...without(
        owedBefore.map((t) => call(t)),
        at(1),
      ),
      failed,
      retry,
    ];
    expect(kinds(run({ journal: [disabled], calls, rows }))).toEqual([
      `called-while-disabled ${taskIdOf(ID, at(1))}`,
    ]);
    // Within a second of the disable's answer, a call may still go out.
    const justAfter = call(at(1), { attempt: 2, arrivedAt: at(3) + 1200 });
    expect(run({ journal: [disabled], calls: [...calls.slice(0, -1), justAfter], rows }).violations).toEqual(
      [],
    );
  });

  it('catches a run called though its timer did not owe it', () => {
    const disabled: JournalEvent = {
      kind: 'timer.define',
      at: at(3),
      sentAt: at(3) - 100,
      timerId: ID,
      key: 't0',
      cause: 'disable',
      def: def({ active: false }),
    };
    const enabled: JournalEvent = {
      ...disabled,
      at: at(8) + 500,
      sentAt: at(8) + 400,
      cause: 'enable',
      def: def(),
    };
    // Due while the timer was off, called after it was enabled again.
    const offRun = call(at(6), { arrivedAt: at(8) + 800 });
    const before = OWED.filter((t) => t < at(3));
    const calls = [...before.map((t) => call(t)), offRun];
    const rows = [...before.map((t) => row(t)), row(at(6))];
    expect(kinds(run({ journal: [disabled, enabled], calls, rows }))).toEqual([
      `not-owed ${taskIdOf(ID, at(6))}`,
    ]);
  });

  it('catches attempt numbers that do not count calls', () => {
    const calls = OWED.map((t) => call(t));
    // The receiver never saw an attempt 1.
    calls[2] = call(at(2), { attempt: 2 });
    // Two calls both numbered 1: a retry must say it is one.
    calls[5] = call(at(5), { status: 500 });
    calls.push(call(at(5), { arrivedAt: at(5) + 700 }));
    expect(kinds(run({ calls }))).toEqual([
      `attempts ${taskIdOf(ID, at(2))}`,
      `attempts ${taskIdOf(ID, at(5))}`,
    ]);
  });

  it('accepts a first call numbered 2 only after a holder was killed at the run’s time', () => {
    const calls = OWED.map((t) => call(t));
    // Killed between noting its call and sending it: the next holder made attempt 2.
    calls[2] = call(at(2), { attempt: 2, arrivedAt: at(2) + 12_000, pid: P2 });
    const journal = [signal(P1, 'SIGKILL', at(2) + 1)];
    expect(kinds(run({ journal, calls }))).toEqual([]);
    // No death around it: the gap is a bug.
    expect(kinds(run({ journal: [signal(P1, 'SIGKILL', at(2) - 5000)], calls }))).toEqual([
      `attempts ${taskIdOf(ID, at(2))}`,
    ]);
  });

  it('accepts retries after a 500 and a timeout, with attempts counting up', () => {
    const calls = without(
      OWED.map((t) => call(t)),
      at(4),
    );
    calls.push(
      call(at(4), { status: 500 }),
      call(at(4), {
        attempt: 2,
        arrivedAt: at(4) + 600,
        endedAt: at(4) + 5600,
        status: null,
        written: false,
      }),
      call(at(4), { attempt: 3, arrivedAt: at(4) + 6700 }),
    );
    const rows = OWED.map((t) => (t === at(4) ? row(t, { attempts: 3 }) : row(t)));
    const result = run({ calls, rows });
    expect(result.violations).toEqual([]);
    expect(result.retried).toBe(1);
  });

  it('accepts owed runs recorded missed, skipped or failed with a reason, and catches one without', () => {
    const calls = OWED.slice(3).map((t) => call(t));
    calls.push(
      call(at(2), { status: 500 }),
      call(at(2), { attempt: 2, arrivedAt: at(2) + 600, status: 500 }),
      call(at(2), { attempt: 3, arrivedAt: at(2) + 1800, status: 500 }),
    );
    const rows = [
      row(at(0), { status: 'missed', attempts: 0, error: 'misfire: 31000 ms late (threshold 30000 ms)' }),
      row(at(1), { status: 'skipped', attempts: 0, error: 'overlap: previous run still in flight' }),
      row(at(2), { status: 'failed', attempts: 3, error: 'HTTP 500' }),
      ...OWED.slice(3).map((t) => row(t)),
    ];
    const result = run({ calls, rows });
    expect(result.violations).toEqual([]);
    expect(result.recorded).toEqual({ missed: 1, skipped: 1, failed: 1 });

    rows[0] = row(at(0), { status: 'missed', attempts: 0, error: null });
    expect(kinds(run({ calls, rows }))).toEqual([`no-reason ${taskIdOf(ID, at(0))}`]);
  });

  it('catches a failing run whose retries were dropped while its timer stayed active', () => {
    const calls = [
      ...without(
        OWED.map((t) => call(t)),
        at(2),
      ),
      call(at(2), { status: 500 }),
    ];
    const rows = OWED.map((t) =>
      t === at(2) ? row(t, { status: 'skipped', error: 'superseded: re-planned at 12:00:00' }) : row(t),
    );
    // An endAt further on does not end a run's retries, though it came during the backoff.
    const patched: JournalEvent = {
      kind: 'timer.define',
      at: at(2) + 800,
      sentAt: at(2) + 700,
      timerId: ID,
      key: 't0',
      cause: 'patch',
      def: def({ endAtMs: T0 + 60_000 }),
    };
    expect(kinds(run({ calls, rows, journal: [patched] }))).toEqual([
      `retries-dropped ${taskIdOf(ID, at(2))}`,
    ]);
  });

  it('lets instants near a change go either way, but not twice', () => {
    // From at(4) on, every 2 s: at(3) … at(5) are within 2 s of the change.
    const patched: JournalEvent = {
      kind: 'timer.define',
      at: at(4),
      sentAt: at(4) - 200,
      timerId: ID,
      key: 't0',
      cause: 'patch',
      def: def({ periodMs: 2000, path: '/hook/t0/r1' }),
    };
    const kept = OWED.filter((t) => t < at(3) || (t > at(5) && (t - T0) % 2000 === 0));
    const calls = kept.map((t) => call(t, { path: t > at(5) ? '/hook/t0/r1' : '/hook/t0/r0' }));
    const rows = kept.map((t) => row(t));
    // at(4) (odd second) was called under the old plan, at(5) not at all: both fine.
    calls.push(call(at(4)));
    rows.push(row(at(4)));
    const result = run({ journal: [patched], calls, rows });
    expect(result.violations).toEqual([]);
    expect(result.either).toBeGreaterThan(0);
    // An odd second after the change's tolerance is off the new schedule.
    const offSchedule = call(at(8), { path: '/hook/t0/r1' });
    expect(kinds(run({ journal: [patched], calls: [...calls, offSchedule], rows }))).toEqual([
      `not-owed ${taskIdOf(ID, at(8))}`,
    ]);
    // The first call after the change goes to the new callback.
    const stale = calls.map((c) => (c.taskId === taskIdOf(ID, at(7)) ? { ...c, path: '/hook/t0/r0' } : c));
    expect(kinds(run({ journal: [patched], calls: stale, rows }))).toEqual([
      `stale-callback ${taskIdOf(ID, at(7))}`,
    ]);
    // Doubled in the tolerance window is still doubled.
    const doubled = [...calls, call(at(4), { attempt: 2, arrivedAt: at(4) + 3000, pid: P2 })];
    expect(kinds(run({ journal: [patched], calls: doubled, rows }))).toEqual([
      `duplicate ${taskIdOf(ID, at(4))}`,
    ]);
  });

  it('catches a success recorded for a run the receiver never acknowledged', () => {
    const calls = OWED.map((t) => (t === at(1) ? call(t, { status: 500 }) : call(t)));
    expect(kinds(run({ calls }))).toEqual([`record-mismatch ${taskIdOf(ID, at(1))}`]);
  });
});
