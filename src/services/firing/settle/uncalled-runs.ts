import { taskKey } from '../../../domain/plan/task-key.js';
import type { Timer } from '../../../domain/timer.js';
import { groupBy } from '../../../lib/group-by.js';
import type { Logger } from '../../../observability/logger.js';
import type { Metrics } from '../../../observability/metrics.js';
import type { TaskRepository } from '../../../storage/db/tasks/task-repository.js';
import type { RunClaims } from '../../../storage/redis/runs/run-claims.js';
import type { FailureNotifier } from '../../notify/failure-notifier.js';
import type { NoCall } from '../admission/call-judgement.js';
import { endedRunFields, endedRunLogOf } from './ended-run-log.js';

/** A run judged not to be called (`whyNotCall`), with its timer as judged (null: deleted). */
export interface UncalledRun {
  run: { timerId: number; runAt: number };
  timer: Timer | null;
  verdict: NoCall;
  /** Finished before, by a settler whose write was lost: it counted and notified already. */
  unwritten?: boolean;
}

export interface UncalledRunsDeps {
  tasks: Pick<TaskRepository, 'settleUncalled'>;
  claims: Pick<RunClaims, 'claim' | 'finish' | 'release'>;
  /** The settler's claim token. */
  owner: string;
  notifier?: Pick<FailureNotifier, 'report'> | undefined;
  metrics: Pick<Metrics, 'runs'>;
  logger: Logger;
}

/** The settler's claim lasts this long: long enough to finish it, short enough to lapse if the settler dies. */
const CLAIM_LEASE_MS = 30_000;
export const MISSED_REASON =
  'missed: still waiting for its call past its misfire threshold (xtimer was behind)';

/**
 * Settles runs that will not be called, many at a time: each claimed as any executor
 * would (a run a live holder has is left to it) and its claim finished at once, so any
 * copy still queued is dropped at its claim; then one `missed` or `skipped` UPDATE per
 * reason. Past capacity a backlog of such runs, settled one by one, costs about what
 * calling them would.
 */
export class UncalledRuns {
  constructor(private readonly d: UncalledRunsDeps) {}

  /** Returns the runs it settled; the others belong to another holder, or are finished already. */
  async settle(runs: readonly UncalledRun[]): Promise<UncalledRun[]> {
    const settled = await this.claim(runs);
    await this.record(settled);
    return settled;
  }

  /**
   * Writes runs whose claims `claim` finished as `missed` or `skipped`, one statement at a
   * time (two at once deadlock on the status index's gaps), and sends their notices. They
   * are counted and noticed even when the write fails: their claims say how they ended,
   * and the late sweep writes what was lost without counting or noticing them again.
   */
  async record(settled: readonly UncalledRun[]): Promise<void> {
    try {
      for (const [reason, group] of groupBy(settled, (s) => reasonOf(s.verdict))) {
        await this.d.tasks.settleUncalled(
          group.map((s) => s.run),
          group[0]!.verdict.status,
          reason,
        );
      }
    } finally {
      await this.announce(settled.filter((s) => !s.unwritten));
    }
  }

  /** Counts the runs this settler finished, logs the missed ones and sends their notices. */
  private async announce(settled: readonly UncalledRun[]): Promise<void> {
    const d = this.d;
    for (const [status, group] of groupBy(settled, (s) => s.verdict.status))
      d.metrics.runs.inc({ outcome: status }, group.length);
    const notices: Promise<void>[] = [];
    for (const { run, timer, verdict } of settled) {
      if (verdict.status !== 'missed' || !timer) continue;
      endedRunLogOf(d.logger).ended(
        'missed',
        endedRunFields(timer, taskKey(run.timerId, run.runAt), MISSED_REASON),
      );
      // Together, not one after another: past capacity each await queues behind the
      // whole backlog of the process's promise callbacks.
      const notice = d.notifier?.report(timer, 'missed', {
        runAt: run.runAt,
        attempts: 0,
        httpStatus: null,
        error: null,
      });
      if (notice) notices.push(notice);
    }
    await Promise.all(notices);
  }

  /**
   * Claims each run and finishes the claim with its verdict; returns those it finished.
   * Left out: a run another holds (a live executor's), one finished already, and one
   * with a call behind it (its holder died mid-call: the compensator queues its next attempt).
   *
   * `readPendingLate`: the runs were read pending in MySQL long after their time. One whose
   * claim was already finished without a call (`missed` or `skipped`) lost that write (its
   * settler's MySQL was away, or it died): it is returned too, to be written as its record says.
   */
  async claim(runs: readonly UncalledRun[], readPendingLate = false): Promise<UncalledRun[]> {
    const { claims, owner } = this.d;
    const settled = await Promise.all(
      runs.map(async (u): Promise<UncalledRun | null> => {
        const ref = { key: taskKey(u.run.timerId, u.run.runAt), runAt: u.run.runAt };
        const claim = await claims.claim(ref, owner, CLAIM_LEASE_MS);
        if (claim.outcome === 'done') return readPendingLate ? unwritten(u, claim) : null;
        if (claim.outcome !== 'claimed') return null;
        if (claim.attempt > 1) {
          await claims.release(ref, owner, claim.attempt, { attemptMade: false });
          return null;
        }
        return (await claims.finish(ref, owner, claim.attempt, u.verdict.status)) ? u : null;
      }),
    );
    return settled.filter((u) => u !== null);
  }
}

/** What a run finished without a call, whose write was lost, is recorded as; null: a call was made. */
function unwritten(u: UncalledRun, claim: { attempt: number; status: string }): UncalledRun | null {
  if (claim.attempt !== 1 || (claim.status !== 'missed' && claim.status !== 'skipped')) return null;
  const status = claim.status;
  const verdict: NoCall =
    status === u.verdict.status ? u.verdict : { status, reason: UNWRITTEN_REASON[status] };
  return { ...u, verdict, unwritten: true };
}

const UNWRITTEN_REASON = {
  missed: MISSED_REASON,
  skipped: 'skipped: as its claim record says (what settled it could not write why)',
} as const;

/** Skips keep their own reason (disabled, deleted, paused); every late run shares one. */
function reasonOf(verdict: NoCall): string {
  return verdict.status === 'missed' ? MISSED_REASON : verdict.reason;
}
