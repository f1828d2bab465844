import type { Timer } from '../../domain/timer.js';
import { awaitedLater } from '../../lib/awaited-later.js';
import { groupBy } from '../../lib/group-by.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { OverdueCursor, PendingRun, TaskRepository } from '../../storage/db/tasks/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import type { RunClaims } from '../../storage/redis/runs/run-claims.js';
import type { PauseWatch } from '../apps/service-pause.js';
import { whyNotCall } from '../firing/admission/call-judgement.js';
import { type UncalledRun, UncalledRuns } from '../firing/settle/uncalled-runs.js';
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
  /** Rows a page reads (PAGE). */
  pageSize?: number;
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

/**
 * Settles in bulk the runs that wait past saving wherever they wait: in the lanes behind
 * a backlog, or in slices no walk reaches in time. The sweep reads them from MySQL,
 * oldest first, judges each as an executor would, and settles them through
 * UncalledRuns: claimed and finished at once, so a copy still queued is dropped at its
 * claim, then written `missed` (or `skipped`: a timer disabled or deleted, the service
 * paused) a page a statement. A run it finds already settled that way but still pending
 * (its settler's write was lost) is written too, as its claim record says.
 */
export class LateSweep {
  private readonly uncalled: UncalledRuns;

  constructor(private readonly d: LateSweepDeps) {
    this.uncalled = new UncalledRuns(d);
  }

  async run(): Promise<LateSweepReport> {
    const report: LateSweepReport = { missed: 0, skipped: 0, ms: 0 };
    const began = Date.now();
    await this.d.pause?.look();
    const now = this.d.now();
    const read = (after?: OverdueCursor) =>
      this.d.tasks.pastThreshold(now, SWEEP_MIN_LATE_MS, this.d.pageSize ?? PAGE, after);
    // Each step overlaps the one before it: the next page is read while this one is
    // claimed, and claimed while the one before is written. Past capacity every round
    // trip waits behind a busy event loop, and the sweep must outpace the runs falling due.
    const timers = new Map<number, Timer | null>();
    let reading = awaitedLater(read());
    let writing: Promise<void> = Promise.resolve();
    for (let page = 0; page < MAX_PAGES; page++) {
      const overdue = await reading;
      const next = overdue.next;
      if (next !== null && page + 1 < MAX_PAGES) reading = awaitedLater(read(next));
      const settled = await this.claim(overdue.runs, timers);
      await writing;
      writing = awaitedLater(
        this.uncalled.record(settled).then(() => {
          for (const s of settled) report[s.verdict.status]++;
        }),
      );
      if (next === null) break;
    }
    await writing;
    report.ms = Date.now() - began;
    if (report.missed + report.skipped > 0) this.d.logger.info(report, 'late runs settled in bulk');
    return report;
  }

  /** Judges a page of runs as an executor would, and claims and finishes those not to be called. */
  private async claim(runs: PendingRun[], timers: Map<number, Timer | null>): Promise<UncalledRun[]> {
    if (runs.length === 0) return [];
    const d = this.d;
    const unknown = [...new Set(runs.map((r) => r.timerId))].filter((id) => !timers.has(id));
    for (const t of await d.timers.findByIds(unknown)) timers.set(t.id, t);
    for (const id of unknown) if (!timers.has(id)) timers.set(id, null);
    const now = d.now();
    const laterInPage = laterRuns(runs);
    const judged: UncalledRun[] = [];
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
      if (verdict) judged.push({ run, timer, verdict });
    }
    return this.uncalled.claim(judged, true);
  }
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
