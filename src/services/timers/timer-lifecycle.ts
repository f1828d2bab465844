import { type AuditDraft, type ChangeAuthor, timerChange } from '../../domain/audit.js';
import { autoPauseNote, type PauseRequest, type Timer } from '../../domain/timer.js';
import { ErrorCode, timerNotFound, XtimerError } from '../../errors.js';
import { GroupCommit, GroupCommitsByKey } from '../../lib/group-commit.js';
import type { Transaction } from '../../storage/db/client.js';
import { NO_CHANGE, type PlanChange } from '../planning/run-planner.js';
import type { AccessScope } from './access.js';
import { hasRunsLeft, noRunsLeft } from './timer-rules.js';
import type { TimerStore } from './timer-store.js';

/** A timer whose final run was due this long ago and has settled is completed by the sweep. */
const ENDED_GRACE_MS = 60_000;

/** Disables stored together at most, and batches on their way at once. */
const DISABLE_BATCH = 100;
const DISABLES_IN_FLIGHT = 2;
/** Under a wave, a free slot waits this long for its batch to fill: without it, most batches held one disable. */
const DISABLE_LINGER_MS = 20;

/** A disable waiting for its batch; `scope` null when the caller's access is already checked. */
interface Disable {
  id: number;
  by: ChangeAuthor | undefined;
  pause: PauseRequest;
  scope: AccessScope | null;
}

/** Who the audit log names for changes xtimer makes itself (a pause that ends, an auto-pause). */
export const SYSTEM_AUTHOR: ChangeAuthor = Object.freeze({ actor: 'system', batchId: null });

/**
 * A timer's status over time: enable and disable (a pause with a note and an `until`),
 * and what xtimer does by itself: resume a pause whose `until` came, auto-pause after
 * failures, complete a timer whose schedule ended. Each change takes only the timer's
 * row lock: under the app's mutex an incident's thousands of disables would queue.
 */
export class TimerLifecycle {
  /**
   * Disables batched per app (per app key's, or the admin's own): a batch waits for the row
   * locks of all its timers, so one app's timer held by a long change of its own must not
   * hold back another app's disables.
   */
  private readonly disables = new GroupCommitsByKey<Disable, Timer>(
    () =>
      new GroupCommit(
        (items) => this.disableEach(items),
        DISABLE_BATCH,
        DISABLES_IN_FLIGHT,
        DISABLE_LINGER_MS,
      ),
  );

  constructor(private readonly store: TimerStore) {}

  /** Activates the timer and materialises its runs at once. Idempotent. */
  async enable(scope: AccessScope, id: number): Promise<Timer> {
    await this.store.owned(scope, id);
    await scope.spend();
    return this.enableAs(id, scope.author);
  }

  /**
   * Deactivates the timer and cancels its runs not yet due, with an optional note and an
   * `until` at which it resumes by itself. Idempotent; on a disabled timer, a note or
   * `until` replaces the pause's.
   */
  async disable(scope: AccessScope, id: number, pause: PauseRequest = {}): Promise<Timer> {
    checkUntil(pause, this.store.deps.now());
    await scope.spend();
    // An app key's queue is its app's (another app's timer is refused in the batch); the admin's, its own.
    const queue = scope.actor.kind === 'app' ? scope.actor.app : '';
    return this.disables.add(queue, { id, by: scope.author, pause, scope });
  }

  /** enable, once the caller's access is checked (an app's pause checks it once for all its timers). */
  async enableAs(id: number, by: ChangeAuthor | undefined): Promise<Timer> {
    return this.setStatus(id, 'active', by);
  }

  /** disable of a timer of `app`, once the caller's access is checked. */
  async disableAs(
    app: string,
    id: number,
    by: ChangeAuthor | undefined,
    pause: PauseRequest = {},
  ): Promise<Timer> {
    checkUntil(pause, this.store.deps.now());
    return this.disables.add(app, { id, by, pause, scope: null });
  }

  /**
   * Enables the disabled timers whose `until` has come (the migrator's pause sweep, every
   * second on every node). Each resume is a conditional change under the timer's row lock,
   * so it happens once in the cluster, also after a restart or Redis losing its data, and
   * is audited as `system`.
   */
  async resumeEnded(now: number): Promise<number> {
    let resumed = 0;
    for (const id of await this.store.timers.pauseEndedIds(now)) {
      let due = false;
      const timer = await this.setStatus(id, 'active', SYSTEM_AUTHOR, {}, (t, at) => {
        due = t.status === 'inactive' && t.pausedUntil !== null && t.pausedUntil <= at;
        return due;
      }).catch((err: unknown) => {
        if (err instanceof XtimerError && err.code === ErrorCode.TIMER_NOT_FOUND) return null;
        throw err;
      });
      if (due && timer?.status === 'active') resumed++;
    }
    return resumed;
  }

  /**
   * Disables an active timer whose failure streak has reached its autoPause, with the
   * note `auto-paused after N consecutive failures`, audited as `system`; the timer if this
   * call paused it (one of several executors settling failures at once), else null.
   */
  async autoPause(id: number): Promise<Timer | null> {
    const n = (await this.store.get(id)).autoPause?.afterConsecutiveFailures;
    if (n === undefined) return null;
    let paused = false;
    const timer = await this.setStatus(id, 'inactive', SYSTEM_AUTHOR, { note: autoPauseNote(n) }, (t) => {
      paused = t.status === 'active' && t.failureStreak >= n;
      return paused;
    });
    return paused ? timer : null;
  }

  /**
   * Completes a timer whose schedule has made its last run, and tells every process; false
   * if it was not active. With `finalRunAt`, only if its final run is at or before it.
   */
  async complete(id: number, finalRunAt?: number): Promise<boolean> {
    const done = await this.store.timers.complete(id, finalRunAt);
    if (done) await this.store.deps.announce(id);
    return done;
  }

  /**
   * Completes the timers whose schedule has ended and that have nothing left in flight
   * (the compensator's sweep, behind the executor that completes a timer at its final run).
   */
  async completeEnded(now: number): Promise<number> {
    let completed = 0;
    for (const id of await this.store.timers.endedIds(now, ENDED_GRACE_MS))
      if (await this.complete(id)) completed++;
    return completed;
  }

  /**
   * Sets the status under the timer's row lock; `onlyIf` (checked under the lock) lets
   * the system's own changes happen only while still due.
   */
  private async setStatus(
    id: number,
    status: 'active' | 'inactive',
    by?: ChangeAuthor,
    pause: PauseRequest = {},
    onlyIf?: (current: Timer, now: number) => boolean,
  ): Promise<Timer> {
    // The timer's row lock orders changes to it; the app's mutex would queue the app's
    // other timers behind this one (thousands of disables during an incident).
    const done = await this.store.deps.database.transaction(async (tx) => {
      const change = await this.changeStatusIn(tx, id, status, by, pause, onlyIf);
      return change === null ? null : { change, marks: await this.store.deps.publisher.mark(tx, [id]) };
    });
    if (done === null) return this.store.get(id);
    return this.store.afterCommit(id, done.change, done.marks);
  }

  /**
   * Disables that arrive together, in one transaction: their rows locked in id order with
   * one statement, one outbox mark and one commit. An incident's thousands of disables
   * from many clients cost a few round trips a batch, not each.
   */
  private async disableEach(items: readonly Disable[]): Promise<Array<PromiseSettledResult<Timer>>> {
    const { deps } = this.store;
    const results: Array<PromiseSettledResult<Timer> | undefined> = items.map(() => undefined);
    const ids = [...new Set(items.map((d) => d.id))];
    const done = await deps.database.transaction(async (tx) => {
      // A deadlock runs this again: each try starts over.
      results.fill(undefined);
      const locked = new Map((await this.store.timersIn(tx).lockMany(ids)).map((t) => [t.id, t]));
      const changed = new Set<number>();
      // Active timers, the incident's case, are disabled by one statement per note and `until`.
      const plain = new Map<
        string,
        { pause: Pausing; timers: Timer[]; by: Array<ChangeAuthor | undefined> }
      >();
      const now = deps.now();
      const settle = async (i: number, step: () => Promise<void>) => {
        try {
          await step();
        } catch (err) {
          // Refused before it wrote anything (not found, another app's): the others go on.
          if (!(err instanceof XtimerError)) throw err;
          results[i] = { status: 'rejected', reason: err };
        }
      };
      // A timer named again in the batch is changed once its first disable is written.
      const repeats: number[] = [];
      for (const [i, item] of items.entries()) {
        const current = locked.get(item.id);
        if (!current) {
          if (items.findIndex((d) => d.id === item.id) < i) repeats.push(i);
          else results[i] = { status: 'rejected', reason: timerNotFound(item.id) };
          continue;
        }
        locked.delete(item.id);
        await settle(i, async () => {
          item.scope?.useApp(current.app);
          if (current.status === 'active') {
            const pause = { note: item.pause.note ?? null, at: now, until: item.pause.until ?? null };
            const key = `${pause.note}\0${pause.until}`;
            const group = plain.get(key) ?? { pause, timers: [], by: [] };
            group.timers.push(current);
            group.by.push(item.by);
            plain.set(key, group);
            changed.add(item.id);
          } else if (
            await this.changeStatusIn(tx, item.id, 'inactive', item.by, item.pause, undefined, current)
          ) {
            changed.add(item.id);
          }
        });
      }
      const entries: AuditDraft[] = [];
      // The rows as the statement leaves them: no read after the commit.
      const written = new Map<number, Timer>();
      for (const { pause, timers, by } of plain.values()) {
        await this.store.timersIn(tx).disableMany(
          timers.map((t) => t.id),
          pause,
        );
        timers.forEach((current, i) => {
          const after = disabled(current, pause);
          written.set(after.id, after);
          const author = by[i];
          if (author) entries.push(timerChange(author, 'disable', current, current, after));
        });
      }
      if (entries.length > 0) await deps.audit.record(entries, tx);
      for (const i of repeats) {
        const item = items[i]!;
        written.delete(item.id);
        await settle(i, async () => {
          item.scope?.useApp((await this.store.lockedTimer(tx, item.id)).app);
          if (await this.changeStatusIn(tx, item.id, 'inactive', item.by, item.pause)) changed.add(item.id);
        });
      }
      return {
        changed: [...changed],
        written,
        marks: changed.size > 0 ? await deps.publisher.mark(tx, [...changed]) : [],
      };
    });
    const after = new Map(done.written);
    // A timer not active, or named again, was changed by a statement of its own.
    for (const t of await this.store.timers.findByIds(ids.filter((id) => !done.written.has(id))))
      after.set(t.id, t);
    if (done.changed.length > 0) {
      await deps.publisher.publish({
        marks: done.marks,
        timers: done.changed.flatMap((id) => after.get(id) ?? []),
        announce: done.changed,
        change: NO_CHANGE,
      });
    }
    return items.map((item, i) => {
      const timer = after.get(item.id);
      return (
        results[i] ??
        (timer
          ? { status: 'fulfilled', value: timer }
          : { status: 'rejected', reason: timerNotFound(item.id) })
      );
    });
  }

  /** setStatus's change in `tx` (the timer's row lock held): null when there is none to make. */
  private async changeStatusIn(
    tx: Transaction,
    id: number,
    status: 'active' | 'inactive',
    by: ChangeAuthor | undefined,
    pause: PauseRequest,
    onlyIf?: (current: Timer, now: number) => boolean,
    locked?: Timer,
  ): Promise<PlanChange | null> {
    const { deps } = this.store;
    const timers = this.store.timersIn(tx);
    const now = deps.now();
    const current = locked ?? (await this.store.lockedTimer(tx, id));
    if (onlyIf && !onlyIf(current, now)) return null;
    const repausing = pause.note !== undefined || pause.until !== undefined;
    if (current.status === status) {
      if (status !== 'inactive' || !repausing) return null;
      // A disabled timer gets a new note or `until`.
      await timers.setPause(id, {
        note: pause.note === undefined ? current.pausedNote : pause.note,
        at: current.pausedAt ?? now,
        until: pause.until ?? null,
      });
      if (by)
        await this.store.audit(tx, by, 'disable', current, current, await this.store.lockedTimer(tx, id));
      return NO_CHANGE;
    }
    if (status === 'inactive') {
      // A completed timer stays completed when nothing is left to stop; one whose
      // final run settled before earlier ones (a backlog) still owes those: a disable
      // stops them as it would an active timer's.
      if (current.status === 'completed' && !(await this.owesRuns(tx, id))) return null;
      // One statement on the timer's row, and its runs are stopped once this commits
      // (RunStopper, by the publisher): an incident's thousands of disables stay cheap.
      const paused = { note: pause.note ?? null, at: now, until: pause.until ?? null };
      await timers.disableMany([id], paused);
      if (by) await this.store.audit(tx, by, 'disable', current, current, disabled(current, paused));
      return NO_CHANGE;
    }
    if (!hasRunsLeft(current, now)) {
      if (by === SYSTEM_AUTHOR) {
        // A pause that ends on a timer with nothing left to run: it stays disabled, no longer due.
        await timers.setPause(id, {
          note: current.pausedNote,
          at: current.pausedAt ?? now,
          until: null,
        });
        return NO_CHANGE;
      }
      throw noRunsLeft(id);
    }
    // The disable's stop may still be queued: done here first, under the row lock, so the
    // runs of the disabled stretch are never left pending for an active timer.
    const stopped =
      current.status === 'inactive' ? await deps.stopper.stopIn(tx, current, current.pausedAt ?? now) : [];
    await timers.setStatus(id, status);
    await timers.setPause(id, null);
    const updated = await this.store.lockedTimer(tx, id);
    await this.store.audit(tx, by, 'enable', current, current, updated);
    return {
      planned: await deps.planner.plan(updated, now, this.store.tasksIn(tx), timers),
      cancelled: stopped,
    };
  }

  /** Whether runs of the timer are still to go (pending, or running: in a call or backing off). */
  private async owesRuns(tx: Transaction, id: number): Promise<boolean> {
    return (await this.store.tasksIn(tx).countForTimer(id, ['pending', 'running'])) > 0;
  }
}

function checkUntil(pause: PauseRequest, now: number): void {
  if (pause.until != null && pause.until <= now) {
    throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'until: must be in the future', [
      { path: 'until', message: 'must be in the future' },
    ]);
  }
}

/** A disable's pause: its note, when it began and when it ends by itself. */
interface Pausing {
  note: string | null;
  at: number;
  until: number | null;
}

/** The timer as a disable leaves it (what the audit entry records). */
function disabled(current: Timer, pause: Pausing): Timer {
  return {
    ...current,
    status: 'inactive',
    version: current.version + 1,
    plannedFrom: pause.at,
    finalRunAt: null,
    pausedNote: pause.note,
    pausedAt: pause.at,
    pausedUntil: pause.until,
    failureStreak: 0,
    updatedAt: new Date(pause.at),
  };
}
