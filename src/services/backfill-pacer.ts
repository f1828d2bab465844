import type { Backfill } from '../domain/backfill.js';
import type { Logger } from '../observability/logger.js';
import { BackfillRepository } from '../storage/db/backfill-repository.js';
import type { Database } from '../storage/db/client.js';
import { continuationJob, type ExecuteJob, executeJobs, type QueuedRun } from '../storage/redis/queues.js';

/** Backfills one tick looks at. */
const BACKFILLS_PER_TICK = 20;
/** How long after its last run was queued (and again every so long) a backfill queues again runs that never ended. */
export const BACKFILL_RECHECK_MS = 30_000;
/** How often a backfill whose runs are all queued looks whether they have all ended. */
const SENT_LOOK_EVERY_MS = 1000;

export interface BackfillPacerDeps {
  database: Database;
  dispatch(jobs: ExecuteJob[]): Promise<unknown>;
  /** BACKFILL_RATE: runs a second per backfill. */
  ratePerSecond: number;
  logger: Logger;
}

/**
 * Sends backfills' runs at their pace (BACKFILL_RATE a second each), oldest first, as
 * runs with trigger `backfill`: the same task key, claim and fencing as any run, so a
 * run queued twice is called once. Every migrator ticks it; a tick locks the backfills
 * it paces (others' are skipped), so the pace holds cluster-wide. Once a backfill's runs
 * are all queued it looks, every BACKFILL_RECHECK_MS, for runs still pending (their job
 * lost with Redis) and queues them again, until every run has ended.
 */
export class BackfillPacer {
  private readonly backfills: BackfillRepository;

  constructor(private readonly d: BackfillPacerDeps) {
    this.backfills = new BackfillRepository(d.database.db, d.database.pool);
  }

  /** One round over the backfills under way; returns the runs queued. */
  async tick(now: number): Promise<number> {
    return this.d.database.transaction(async (tx) => {
      const backfills = this.backfills.withDb(tx.db, tx.conn);
      let queued = 0;
      for (const b of await backfills.lockUnderway(BACKFILLS_PER_TICK)) {
        queued +=
          b.status === 'sending' ? await this.send(backfills, b, now) : await this.recheck(backfills, b, now);
      }
      return queued;
    });
  }

  /** Queues the runs its pace allows since it was last paced (at most a second's worth). */
  private async send(backfills: BackfillRepository, b: Backfill, now: number): Promise<number> {
    const rate = this.d.ratePerSecond;
    const allowed = Math.min(rate, Math.floor((rate * (now - b.pacedAt)) / 1000));
    if (allowed < 1) return 0;
    const runs = await backfills.nextRuns(b, b.cursor, allowed);
    if (runs.length > 0)
      await this.d.dispatch(
        executeJobs(
          runs.map((r) => runOf(b, r)),
          'backfill',
        ),
      );
    const last = runs.at(-1);
    const done = runs.length < allowed;
    await backfills.advance(b.id, {
      sent: b.sent + runs.length,
      cursor: done || last === undefined ? b.to : last.runAt + 1,
      status: done ? 'sent' : 'sending',
      pacedAt: now,
      ...(done ? { checkedAt: now } : {}),
    });
    if (done)
      this.d.logger.info(
        { backfillId: b.id, timerId: b.timerId, sent: b.sent + runs.length },
        'backfill queued',
      );
    return runs.length;
  }

  /**
   * All queued: completed once every run has ended (looked at every second); runs still
   * pending BACKFILL_RECHECK_MS after they were queued are queued again.
   */
  private async recheck(backfills: BackfillRepository, b: Backfill, now: number): Promise<number> {
    if (now - b.pacedAt < SENT_LOOK_EVERY_MS) return 0;
    const progress = await backfills.progress(b);
    if (progress.pending + progress.running === 0) {
      await backfills.advance(b.id, { sent: b.sent, cursor: b.to, status: 'completed', pacedAt: now });
      this.d.logger.info({ backfillId: b.id, timerId: b.timerId, ...progress }, 'backfill completed');
      return 0;
    }
    const due = now - (b.checkedAt ?? 0) >= BACKFILL_RECHECK_MS;
    const stale = due && progress.pending > 0 ? await backfills.unclaimedRuns(b, b.to) : [];
    // Queued as the compensator queues runs MySQL still shows pending: a claim record that
    // says the run ended supplies its lost outcome; a live claim keeps the copy out.
    if (stale.length > 0)
      await this.d.dispatch(stale.map((r) => continuationJob(runOf(b, r), 'compensator')));
    await backfills.advance(b.id, {
      sent: b.sent,
      cursor: b.to,
      status: 'sent',
      pacedAt: now,
      ...(due ? { checkedAt: now } : {}),
    });
    if (stale.length > 0)
      this.d.logger.warn({ backfillId: b.id, runs: stale.length }, 'backfill runs queued again');
    return stale.length;
  }
}

function runOf(b: Backfill, r: { runAt: number; version: number }): QueuedRun {
  const run: QueuedRun = { timerId: b.timerId, runAt: r.runAt, version: r.version, trigger: 'backfill' };
  if (b.overlapPolicy !== null) run.overlapPolicy = b.overlapPolicy;
  return run;
}
