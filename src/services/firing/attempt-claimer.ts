import { taskKey } from '../../domain/plan/task-key.js';
import { MicroBatcher } from '../../lib/micro-batcher.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RunState } from '../../storage/db/tasks/task-repository.js';
import type { QueuedRun } from '../../storage/redis/queues.js';
import { isFinished } from '../../storage/redis/runs/claim-record.js';
import type { RunClaims, RunRef } from '../../storage/redis/runs/run-claims.js';
import type { Lease, LeaseKeeper } from './lease-keeper.js';
import { COMPENSATOR, duplicate, type RunReport, type RunToExecute } from './run-execution.js';
import { outcomeOf } from './settle/run-outcome.js';
import type { RunRecorder } from './settle/run-recorder.js';

/** What the claim takes of the executor's dependencies. */
export interface AttemptClaimerDeps {
  claims: Pick<RunClaims, 'claim' | 'finish' | 'release' | 'keepMs'>;
  leases: Pick<LeaseKeeper, 'claimLeaseMs' | 'hold' | 'drop'>;
  /** A run's row in MySQL: asked only when the bloom filter cannot rule out that it ran. */
  history(runs: readonly QueuedRun[]): Promise<Map<string, RunState>>;
  recorder: Pick<RunRecorder, 'record'>;
  metrics: Metrics;
  /** True while Redis may have lost data recently (its "slices intact" marker went missing). */
  redisMayHaveLostData(): boolean;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Longer than the run recorder takes to write a buffered outcome. */
const OUTCOME_SETTLE_MS = 1000;
/** A held run whose lease ends within this is waited for: its holder is likely gone (live ones renew well before). */
const LAPSING_LEASE_MS = 1000;
/** Runs whose history one MySQL query reads at most (the bloom filter said maybe). */
const HISTORY_BATCH_MAX = 500;
/** Reads of a run's history before its job is failed (and tried again later by BullMQ). */
const HISTORY_TRIES = 3;
/** A finished run's claim record is trusted to say so until this long before it expires. */
const RECORD_MARGIN_MS = 60_000;

/**
 * Takes a run's next attempt for one execution, before its due instant: the claim record
 * (which also says whether the run ran already), and MySQL's history where the record
 * cannot know. Hands back the attempt's lease, or the report of a copy that must not go on.
 */
export class AttemptClaimer {
  private readonly historyCheck: MicroBatcher<QueuedRun, RunState | null>;

  constructor(private readonly d: AttemptClaimerDeps) {
    this.historyCheck = new MicroBatcher(async (runs) => {
      const found = await d.history(runs);
      return runs.map((r) => found.get(taskKey(r.timerId, r.runAt)) ?? null);
    }, HISTORY_BATCH_MAX);
  }

  /**
   * Claims the run's next attempt. A run another owner holds is left to it: a live
   * holder renews its lease, and a dead one's runs are queued again by the compensator
   * once it has lapsed. Only a lease about to lapse is waited for, once.
   */
  async claim(run: RunToExecute, ref: RunRef, owner: string): Promise<Lease | RunReport> {
    const d = this.d;
    for (let look = 1; ; look++) {
      const requestedAt = d.now();
      const leaseMs = d.leases.claimLeaseMs(run.runAt);
      const claim = await d.claims.claim(ref, owner, leaseMs, run.afterAttempt ?? 0);
      if (claim.outcome === 'claimed') {
        const lease = d.leases.hold(ref, owner, claim.attempt, requestedAt, leaseMs);
        try {
          return (await this.checkHistory(run, lease, claim.bloom)) ?? lease;
        } catch (err) {
          // Not dropped, the lease would be renewed for as long as this process lives.
          d.leases.drop(lease);
          await this.withdraw(lease);
          throw err;
        }
      }
      if (claim.outcome === 'done') {
        // The compensator re-queues runs MySQL still shows pending: if the outcome write was
        // lost (a process killed with it buffered), the claim record supplies it.
        if (run.slice === COMPENSATOR) d.recorder.record(outcomeOf(run, claim.status, claim.attempt, {}));
        return duplicate(d.metrics, 'claim');
      }
      // Backing off: its retry job carries it on. Held: its holder's.
      const remaining = claim.untilMs - d.now();
      if (claim.state === 'backoff' || look > 1 || remaining > LAPSING_LEASE_MS)
        return duplicate(d.metrics, 'claim');
      await d.sleep(Math.max(0, remaining) + LAPSING_LEASE_MS / 10);
    }
  }

  /**
   * Beyond the claim record's memory (the bloom filter said maybe, or could not tell):
   * MySQL. A finished run is a duplicate; one a live holder is calling (Redis lost its
   * claim) is left to it; one whose holder died mid-call is claimed as the next attempt.
   * Returns a report when this copy must not go on, the lease of a new attempt, or null
   * to go on with `lease`. MySQL knows nothing of a run not yet due (the claim does not
   * even ask the filter about one, so it comes with no answer); and had a run due
   * within the claim records' memory finished, its record would have said so (unless
   * Redis lost it): neither needs MySQL, so firing them goes on while MySQL is away.
   */
  private async checkHistory(
    run: RunToExecute,
    lease: Lease,
    bloom: 'no' | 'maybe' | 'unknown' | null,
  ): Promise<Lease | RunReport | null> {
    const d = this.d;
    if (bloom !== 'maybe' && bloom !== 'unknown') return null;
    const now = d.now();
    if (run.runAt > now) return null;
    if (
      bloom === 'maybe' &&
      run.runAt > now - d.claims.keepMs + RECORD_MARGIN_MS &&
      !d.redisMayHaveLostData()
    )
      return null;
    if (bloom === 'unknown' && run.runAt < now) {
      // Redis lost the filter and this overdue run is being fanned out again: give every
      // executor's buffered outcomes time to reach MySQL before asking it.
      await d.sleep(OUTCOME_SETTLE_MS);
    }
    const row = await this.readHistory(run);
    if (row === null || row.status === 'pending') return null;
    if (isFinished(row.status)) {
      await d.claims.finish(lease.run, lease.owner, lease.attempt, row.status);
      d.leases.drop(lease);
      return duplicate(d.metrics, 'history');
    }
    if (row.status === 'running' && (row.leaseUntil ?? 0) > d.now()) {
      await d.claims.release(lease.run, lease.owner, lease.attempt, { attemptMade: false });
      d.leases.drop(lease);
      return duplicate(d.metrics, 'history');
    }
    if (row.attempts >= lease.attempt) {
      // Its holder died mid-call after Redis lost the claim: this is attempt attempts + 1.
      await d.claims.release(lease.run, lease.owner, lease.attempt, { attemptMade: false });
      d.leases.drop(lease);
      return this.claim(
        { ...run, afterAttempt: Math.max(run.afterAttempt ?? 0, row.attempts) },
        lease.run,
        lease.owner,
      );
    }
    return null;
  }

  /** The run's row, asked again on a failure: an unanswered question is never "it never ran". */
  private async readHistory(run: RunToExecute): Promise<RunState | null> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.historyCheck.load(run);
      } catch (err) {
        if (tries >= HISTORY_TRIES) throw err;
        await this.d.sleep(250 * tries);
      }
    }
  }

  /** Withdraws an attempt that made no call, if Redis can be told (else its lease lapses). */
  async withdraw(lease: Lease): Promise<void> {
    await this.d.claims
      .release(lease.run, lease.owner, lease.attempt, { attemptMade: false })
      .catch(() => undefined);
  }
}
