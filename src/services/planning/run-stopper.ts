import { eq, inArray, sql } from 'drizzle-orm';
import { taskKey } from '../../domain/plan/task-key.js';
import type { Timer } from '../../domain/timer.js';
import type { Database, Transaction } from '../../storage/db/client.js';
import { timers } from '../../storage/db/schema.js';
import { type PendingRun, TaskRepository } from '../../storage/db/tasks/task-repository.js';
import { isHeld } from '../../storage/redis/runs/claim-record.js';
import type { RunClaims, RunRef } from '../../storage/redis/runs/run-claims.js';

/** How far ahead of its time a run may already be claimed (the trigger's preread, with room). */
const CLAIMED_AHEAD_MS = 60_000;

/** A committed disable whose runs are to stop: the timer at the version the disable wrote. */
export interface StopRequest {
  timerId: number;
  version: number;
  disabledAt: number;
}

/** What a disabled timer's backlog is recorded as. */
export const DISABLED_REASON = 'skipped: the timer was disabled';

/**
 * A disabled timer's runs, once the disable has committed: those due before it that no
 * executor has claimed (a backlog queued behind an overload; executors drop their queued
 * copies) are recorded skipped, so none stays pending, and a run an executor holds is
 * left to it (it may be in its call); those due after it are cancelled. In a transaction of its own, under the
 * timer's row lock and only while the timer is still the disabled version: the disable
 * itself touched the timer's row only, so thousands of disables at once never wait on the
 * run history's locks while holding a timer's.
 */
export class RunStopper {
  constructor(
    private readonly database: Database,
    private readonly claims: Pick<RunClaims, 'peek'>,
    private readonly now: () => number,
  ) {}

  /** Returns the runs cancelled (to take out of the slices); none if the timer changed since. */
  async stop(timerId: number, version: number, disabledAt: number): Promise<PendingRun[]> {
    return (await this.stopMany([{ timerId, version, disabledAt }]))[0] ?? [];
  }

  /**
   * Stops a batch of disables in one transaction: an incident's thousands of disables
   * cost a few statements a batch, not each. The runs cancelled, for each request.
   */
  async stopMany(requests: readonly StopRequest[]): Promise<PendingRun[][]> {
    if (requests.length === 0) return [];
    const select = { id: timers.id, version: timers.version, status: timers.status, maxRuns: timers.maxRuns };
    const stillDisabled = (rows: readonly { id: number; version: number; status: string }[]) => {
      const current = new Map(rows.map((r) => [r.id, r]));
      return requests.filter((r) => {
        const row = current.get(r.timerId);
        return row !== undefined && row.version === r.version && row.status === 'inactive';
      });
    };
    // A timer changed since its disable (enabled, which stopped its runs itself, or edited)
    // is left out before any lock: the batch's long transaction would hold its row, and an
    // operator's next change to it would wait for the whole batch.
    const seen = await this.database.db
      .select(select)
      .from(timers)
      .where(inArray(timers.id, [...new Set(requests.map((r) => r.timerId))]));
    const ids = [...new Set(stillDisabled(seen).map((r) => r.timerId))].sort((a, b) => a - b);
    if (ids.length === 0) return requests.map(() => []);
    return this.database.transaction(async (tx) => {
      // In id order, as every batch locks them: two batches never wait on each other in a cycle.
      const rows = await tx.db
        .select(select)
        .from(timers)
        .where(inArray(timers.id, ids))
        .orderBy(timers.id)
        .for('update');
      const current = new Map(rows.map((r) => [r.id, r]));
      // The same disable published twice (a repair racing its publisher) is stopped once.
      const due = [...new Map(stillDisabled(rows).map((r) => [r.timerId, r])).values()];
      const stopped = await this.stopAll(
        tx,
        due.map((r) => ({
          id: r.timerId,
          maxRuns: current.get(r.timerId)?.maxRuns ?? null,
          disabledAt: r.disabledAt,
        })),
      );
      const stopping = new Set(due);
      return requests.map((r) => (stopping.has(r) ? (stopped.get(r.timerId) ?? []) : []));
    });
  }

  /**
   * The stop itself, in a transaction that holds the timer's row lock with the timer still
   * disabled: an enable runs it first, so a stop still queued can never leave the disabled
   * stretch's runs for the compensator to fire.
   */
  async stopIn(
    tx: Transaction,
    timer: Pick<Timer, 'id' | 'maxRuns'>,
    disabledAt: number,
  ): Promise<PendingRun[]> {
    return (await this.stopAll(tx, [{ ...timer, disabledAt }])).get(timer.id) ?? [];
  }

  /**
   * A re-plan's cancel: the timer's scheduled runs still pending from `fromMs`, except
   * those an executor already holds. Runs are claimed ahead of their time and may be in
   * their call when the change commits: such a row stays, for its holder to record.
   */
  async cancelFrom(tx: Transaction, timerId: number, fromMs: number): Promise<PendingRun[]> {
    const tasks = new TaskRepository(tx.db, tx.conn, true);
    const soon = await tasks.pendingOfTimerBetween(timerId, fromMs, this.now() + CLAIMED_AHEAD_MS);
    const records = soon.length === 0 ? [] : await this.claims.peek(soon.map(refOf));
    const held = soon.filter((_, i) => records[i] !== null && records[i] !== undefined);
    return tasks.deletePending(
      timerId,
      fromMs,
      held.map((r) => r.runAt),
    );
  }

  private async stopAll(
    tx: Transaction,
    stops: readonly { id: number; maxRuns: number | null; disabledAt: number }[],
  ): Promise<Map<number, PendingRun[]>> {
    const cancelled = new Map<number, PendingRun[]>();
    if (stops.length === 0) return cancelled;
    const tasks = new TaskRepository(tx.db, tx.conn, true);
    const disabledAt = new Map(stops.map((s) => [s.id, s.disabledAt]));
    const pending = await tasks.pendingOfTimers(stops.map((s) => s.id));
    const backlog: PendingRun[] = [];
    const soon: PendingRun[] = [];
    const later: PendingRun[] = [];
    const claimedAhead = this.now() + CLAIMED_AHEAD_MS;
    for (const run of pending) {
      const from = disabledAt.get(run.timerId) ?? 0;
      (run.runAt < from ? backlog : run.runAt < claimedAhead ? soon : later).push(run);
    }
    const records = await this.claims.peek([...backlog, ...soon].map(refOf));
    // A backlog run is left to its holder only while the holder lives (renews its lease).
    const now = this.now();
    const unheld = backlog.filter((_, i) => {
      const record = records[i];
      return record === null || record === undefined || (isHeld(record.state) && record.untilMs < now);
    });
    await tasks.skipEach(unheld, DISABLED_REASON);
    // A run due from the disable on may already be claimed (runs are claimed ahead of
    // their time) or even called and answered: its row stays, for its holder to record.
    soon.forEach((run, i) => {
      const record = records[backlog.length + i];
      if (record === null || record === undefined) later.push(run);
    });
    await tasks.deletePendingRuns(later);
    for (const run of later) {
      const list = cancelled.get(run.timerId) ?? [];
      list.push(run);
      cancelled.set(run.timerId, list);
    }
    // maxRuns counts planned runs: the cancelled ones no longer count.
    for (const s of stops) {
      const count = cancelled.get(s.id)?.length ?? 0;
      if (s.maxRuns === null || count === 0) continue;
      await tx.db
        .update(timers)
        .set({
          runsPlanned: sql`GREATEST(0, ${timers.runsPlanned} - ${count})`,
          updatedAt: sql`${timers.updatedAt}`,
        })
        .where(eq(timers.id, s.id));
    }
    return cancelled;
  }
}

function refOf(r: PendingRun): RunRef {
  return { key: taskKey(r.timerId, r.runAt), runAt: r.runAt };
}
