import { taskKey } from '../../domain/plan/task-key.js';
import type { Timer } from '../../domain/timer.js';
import { groupBy } from '../../lib/group-by.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { OverdueCursor, PendingRun, TaskRepository } from '../../storage/db/tasks/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import type { RunClaims } from '../../storage/redis/runs/run-claims.js';
import type { PauseWatch } from '../apps/service-pause.js';
import { type NoCall, whyNotCall } from '../firing/admission/call-judgement.js';
import { endedRunFields, endedRunLogOf } from '../firing/settle/ended-run-log.js';
import type { FailureNotifier } from '../notify/failure-notifier.js';

export interface LateSweepDeps {
  tasks: Pick<TaskRepository, 'pastThreshold' | 'settleUncalled'>;
  timers: Pick<TimerRepository, 'findByIds'>;
  claims: Pick<RunClaims, 'claim' | 'finish' | 'release'>;
  /** This sweeper's claim token. */
  owner: string;
  /** The pause of the whole service, as Redis holds it: looked at once a pass. */
  pause?: Pick<PauseWatch, 'look' | 'current'> | undefined;
  notifier?: Pick<FailureNotifier, 'report'> | undefined;
  metrics: Pick<Metrics, 'runs'>;
  logger: Logger;
  now(): number;
}

export interface LateSweepReport {
  missed: number;
  skipped: number;
  /** How long the pass took. */
  ms: number;
}

/** No run is swept before it is this late, whatever its threshold: a run on its way to a call is claimed well before. */
const SWEEP_MIN_LATE_MS = 30_000;
/** Rows a page reads: big, as each round trip waits behind a busy event loop past capacity. */
const PAGE = 20_000;
/** Pages one pass reads at most; the next pass goes on where the backlog is then. */
const MAX_PAGES = 40;

/** The sweeper's claim lasts this long: long enough to finish it, short enough to lapse if the sweeper dies. */
const CLAIM_LEASE_MS = 30_000;
const MISSED_REASON = 'missed: still waiting for its call past its misfire threshold (xtimer was behind)';

/**
 * Settles in bulk the runs that wait past saving. Past capacity, runs queue up in the
 * catch-up lane faster than an executor can settle them one by one (a run settled there
 * costs about what a call does), so runs its misfire policy would not call any more
 * stayed pending for good. The sweep reads them from MySQL, oldest first, claims each
 * as any executor would (a run a live executor holds is left to it) and finishes the
 * claim at once, so the copy still queued is dropped at its claim when it is reached;
 * then writes them `missed` (or `skipped`: a timer disabled or deleted, the service
 * paused) a thousand rows a statement.
 */
export class LateSweep {
  constructor(private readonly d: LateSweepDeps) {}

  async run(): Promise<LateSweepReport> {
    const report: LateSweepReport = { missed: 0, skipped: 0, ms: 0 };
    const began = Date.now();
    await this.d.pause?.look();
    const now = this.d.now();
    const read = (after?: OverdueCursor) => this.d.tasks.pastThreshold(now, SWEEP_MIN_LATE_MS, PAGE, after);
    // The next page is read while this one is settled: under a backlog each round trip
    // waits behind a busy event loop, and the sweep must outpace the runs falling due.
    const timers = new Map<number, Timer | null>();
    let reading = read();
    for (let page = 0; page < MAX_PAGES; page++) {
      const overdue = await reading;
      const next = overdue.next;
      if (next !== null && page + 1 < MAX_PAGES) reading = read(next);
      await this.settle(overdue.runs, timers, report);
      if (next === null) break;
    }
    report.ms = Date.now() - began;
    if (report.missed + report.skipped > 0) this.d.logger.info(report, 'late runs settled in bulk');
    return report;
  }

  private async settle(
    runs: PendingRun[],
    timers: Map<number, Timer | null>,
    report: LateSweepReport,
  ): Promise<void> {
    if (runs.length === 0) return;
    const d = this.d;
    const unknown = [...new Set(runs.map((r) => r.timerId))].filter((id) => !timers.has(id));
    for (const t of await d.timers.findByIds(unknown)) timers.set(t.id, t);
    for (const id of unknown) if (!timers.has(id)) timers.set(id, null);
    const now = d.now();
    const laterInPage = laterRuns(runs);
    const judged: Array<{ run: PendingRun; verdict: NoCall }> = [];
    for (const run of runs) {
      const timer = timers.get(run.timerId) ?? null;
      const cached = { id: run.timerId, timer, stale: false, loadedAt: now };
      // A later run of the timer in the page is its successor or after it: when that one
      // is past the threshold too, so is the successor, and fire_once is decided without
      // walking the schedule (a cron's next instant is dear, and a page holds thousands).
      const later = laterInPage.get(run);
      const bounded = later !== undefined && timer !== null && now - later > timer.misfireThresholdMs;
      const verdict = whyNotCall(
        { now: d.now, paused: d.pause?.current },
        cached,
        { ...run, slice: 'sweep' },
        true,
        bounded ? () => later : undefined,
      );
      if (verdict) judged.push({ run, verdict });
    }
    const settled = await this.claimAndFinish(judged);
    // One statement at a time: two at once deadlock on the status index's gaps.
    for (const [reason, group] of groupBy(settled, (s) => reasonOf(s.verdict))) {
      const status = group[0]!.verdict.status;
      await d.tasks.settleUncalled(
        group.map((s) => s.run),
        status,
        reason,
      );
      d.metrics.runs.inc({ outcome: status }, group.length);
      report[status] += group.length;
    }
    for (const { run, verdict } of settled) {
      const timer = timers.get(run.timerId);
      if (verdict.status !== 'missed' || !timer) continue;
      endedRunLogOf(d.logger).ended(
        'missed',
        endedRunFields(timer, taskKey(run.timerId, run.runAt), MISSED_REASON),
      );
      await d.notifier?.report(timer, 'missed', {
        runAt: run.runAt,
        attempts: 0,
        httpStatus: null,
        error: null,
      });
    }
  }

  /**
   * Claims each run and finishes the claim with its verdict. Left out: a run another
   * holds (a live executor's), one finished already, and one with a call behind it
   * (its holder died mid-call: the compensator queues its next attempt).
   */
  private async claimAndFinish(
    judged: Array<{ run: PendingRun; verdict: NoCall }>,
  ): Promise<Array<{ run: PendingRun; verdict: NoCall }>> {
    const { claims, owner } = this.d;
    const done = await Promise.all(
      judged.map(async (j) => {
        const ref = { key: taskKey(j.run.timerId, j.run.runAt), runAt: j.run.runAt };
        const claim = await claims.claim(ref, owner, CLAIM_LEASE_MS);
        if (claim.outcome !== 'claimed') return false;
        if (claim.attempt > 1) {
          await claims.release(ref, owner, claim.attempt, { attemptMade: false });
          return false;
        }
        return claims.finish(ref, owner, claim.attempt, j.verdict.status);
      }),
    );
    return judged.filter((_, i) => done[i]);
  }
}

/** Skips keep their own reason (disabled, deleted, paused); every late run shares one. */
function reasonOf(verdict: NoCall): string {
  return verdict.status === 'missed' ? MISSED_REASON : verdict.reason;
}

/** For each run, the next later run of the same timer among `runs`, where there is one. */
function laterRuns(runs: readonly PendingRun[]): Map<PendingRun, number> {
  const out = new Map<PendingRun, number>();
  for (const [, ofTimer] of groupBy(runs, (r) => r.timerId)) {
    const sorted = [...ofTimer].sort((a, b) => a.runAt - b.runAt);
    for (let i = 0; i + 1 < sorted.length; i++) out.set(sorted[i]!, sorted[i + 1]!.runAt);
  }
  return out;
}
