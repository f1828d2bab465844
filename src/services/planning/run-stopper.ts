import { eq, sql } from 'drizzle-orm';
import { taskKey } from '../../domain/plan/task-key.js';
import type { Timer } from '../../domain/timer.js';
import type { Database, Transaction } from '../../storage/db/client.js';
import { timers } from '../../storage/db/schema.js';
import { type PendingRun, TaskRepository } from '../../storage/db/task-repository.js';
import { isHeld } from '../../storage/redis/runs/claim-record.js';
import type { RunClaims, RunRef } from '../../storage/redis/runs/run-claims.js';

/** How far ahead of its time a run may already be claimed (the trigger's preread, with room). */
const CLAIMED_AHEAD_MS = 60_000;

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
    return this.database.transaction(async (tx) => {
      const [row] = await tx.db
        .select({ version: timers.version, status: timers.status, maxRuns: timers.maxRuns })
        .from(timers)
        .where(eq(timers.id, timerId))
        .for('update');
      if (!row || row.version !== version || row.status !== 'inactive') return [];
      return this.stopIn(tx, { id: timerId, maxRuns: row.maxRuns }, disabledAt);
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
    const timerId = timer.id;
    const tasks = new TaskRepository(tx.db, tx.conn);
    const backlog = await tasks.pendingOfTimer(timerId, 0, disabledAt);
    if (backlog.length > 0) {
      const records = await this.claims.peek(backlog.map(refOf));
      // Left to its holder only while the holder lives (renews its lease).
      const now = this.now();
      const unheld = backlog.filter((_, i) => {
        const record = records[i];
        return record === null || record === undefined || (isHeld(record.state) && record.untilMs < now);
      });
      await tasks.skipRuns(
        timerId,
        unheld.map((r) => r.runAt),
        DISABLED_REASON,
      );
    }
    // A run due from the disable on may already be claimed (runs are claimed ahead of
    // their time) or even called and answered: its row stays, for its holder to record.
    const soon = await tasks.pendingOfTimer(timerId, disabledAt, this.now() + CLAIMED_AHEAD_MS);
    const taken = soon.length === 0 ? [] : await this.claims.peek(soon.map(refOf));
    const spared = soon.filter((_, i) => taken[i] !== null && taken[i] !== undefined).map((r) => r.runAt);
    const cancelled = await tasks.deletePending(timerId, disabledAt, spared);
    // maxRuns counts planned runs: the cancelled ones no longer count.
    if (timer.maxRuns !== null && cancelled.length > 0) {
      await tx.db
        .update(timers)
        .set({
          runsPlanned: sql`GREATEST(0, ${timers.runsPlanned} - ${cancelled.length})`,
          updatedAt: sql`${timers.updatedAt}`,
        })
        .where(eq(timers.id, timerId));
    }
    return cancelled;
  }
}

function refOf(r: PendingRun): RunRef {
  return { key: taskKey(r.timerId, r.runAt), runAt: r.runAt };
}
