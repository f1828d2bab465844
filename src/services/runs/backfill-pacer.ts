import type { Backfill } from '../../domain/backfill.js';
import type { Logger } from '../../observability/logger.js';
import { BackfillRepository } from '../../storage/db/backfill-repository.js';
import type { Database } from '../../storage/db/client.js';
import { type ExecuteJob, executeJobs, type QueuedRun } from '../../storage/redis/queues.js';

/** Backfills one tick looks at. */
const BACKFILLS_PER_TICK = 20;
/** How long after a round queued its last run the backfill looks for runs still pending, and sends them again. */
export const BACKFILL_RECHECK_MS = 30_000;
/** How often a backfill whose runs are all queued looks whether they have all ended. */
const SENT_LOOK_EVERY_MS = 1000;

export interface BackfillPacerDeps {
  database: Database;
  /** Queues runs never queued before (round 0). */
  dispatch(jobs: ExecuteJob[]): Promise<unknown>;
  /** Queues runs again (a later round): a job of theirs that has ended is replaced. */
  requeue(runs: QueuedRun[]): Promise<unknown>;
  /** BACKFILL_RATE: runs a second per backfill. */
  ratePerSecond: number;
  logger: Logger;
}

/**
 * Sends backfills' runs at their pace (BACKFILL_RATE a second each), in run order, as
 * runs with trigger `backfill`: the same task key, claim and fencing as any run, so a
 * run queued twice is called once. Every migrator ticks it; a tick locks each backfill
 * it paces in a transaction of its own (one another pacer holds is skipped), so the pace
 * holds cluster-wide, and a pacer that dies mid-tick leaves the cursor where it was (the
 * runs it had queued are queued again, and their claims let one copy through).
 *
 * A round queues every run still pending, once. Then the backfill is `sent`: it ends once
 * every run has; runs still pending BACKFILL_RECHECK_MS after the round (their jobs lost
 * with Redis) start another round, at the same pace. A cancelled backfill is watched the
 * same way until the runs it had queued end.
 */
export class BackfillPacer {
  private readonly backfills: BackfillRepository;

  constructor(private readonly d: BackfillPacerDeps) {
    this.backfills = new BackfillRepository(d.database.db, d.database.pool);
  }

  /** One round over the backfills under way, each in its own transaction; returns the runs queued. */
  async tick(now: number): Promise<number> {
    let queued = 0;
    for (const id of await this.backfills.underway(BACKFILLS_PER_TICK)) {
      queued += await this.d.database.transaction(async (tx) => {
        const backfills = this.backfills.withDb(tx.db, tx.conn);
        const b = await backfills.lockIfUnderway(id);
        if (!b) return 0;
        return b.stage === 'sending' ? this.send(backfills, b, now) : this.watch(backfills, b, now);
      });
    }
    return queued;
  }

  /**
   * Queues the runs its pace allows since it was last paced (at most a second's worth),
   * carrying the fraction of a run left over to the next tick.
   */
  private async send(backfills: BackfillRepository, b: Backfill, now: number): Promise<number> {
    const rate = this.d.ratePerSecond;
    const elapsed = Math.min(now - b.pacedAt, 1000);
    const allowed = Math.floor((rate * elapsed) / 1000);
    if (allowed < 1) return 0;
    const found = await backfills.nextRuns(b, b.cursor, allowed);
    const runs = found.map((r) => runOf(b, r));
    if (runs.length > 0) {
      if (b.round === 0) await this.d.dispatch(executeJobs(runs, 'backfill'));
      else await this.d.requeue(runs);
    }
    const last = runs.at(-1);
    const roundDone = runs.length < allowed;
    await backfills.advance(b.id, {
      sent: b.round === 0 ? b.sent + runs.length : b.sent,
      cursor: roundDone || last === undefined ? b.to : last.runAt + 1,
      stage: roundDone ? 'sent' : 'sending',
      round: b.round,
      pacedAt: now - (elapsed - (allowed * 1000) / rate),
      ...(roundDone ? { checkedAt: now } : {}),
    });
    if (roundDone)
      this.d.logger.info({ backfillId: b.id, timerId: b.timerId, round: b.round }, 'backfill queued');
    return runs.length;
  }

  /** All queued: ends once every run has; runs still pending a while after the round get another. */
  private async watch(backfills: BackfillRepository, b: Backfill, now: number): Promise<number> {
    if (now - b.pacedAt < SENT_LOOK_EVERY_MS) return 0;
    const progress = await backfills.progress(b);
    const unended = progress.pending + progress.running;
    // Only runs it sends itself: one a user retried has its own job, watched by the compensator.
    const again =
      progress.pending > 0 &&
      now - (b.checkedAt ?? 0) >= BACKFILL_RECHECK_MS &&
      (await backfills.nextRuns(b, b.from, 1)).length > 0;
    await backfills.advance(b.id, {
      sent: b.sent,
      cursor: again ? b.from : b.to,
      stage: unended === 0 ? 'ended' : again ? 'sending' : 'sent',
      round: again ? b.round + 1 : b.round,
      pacedAt: now,
    });
    if (unended === 0)
      this.d.logger.info({ backfillId: b.id, timerId: b.timerId, ...progress }, 'backfill ended');
    else if (again)
      this.d.logger.warn(
        { backfillId: b.id, pending: progress.pending, round: b.round + 1 },
        'backfill runs still pending after their round: queuing them again',
      );
    return 0;
  }
}

function runOf(b: Backfill, r: { runAt: number; version: number }): QueuedRun {
  const run: QueuedRun = { timerId: b.timerId, runAt: r.runAt, version: r.version, trigger: 'backfill' };
  if (b.overlapPolicy !== null) run.overlapPolicy = b.overlapPolicy;
  return run;
}
