import type { Metrics } from '../../../observability/metrics.js';
import { whyNotCall } from '../admission/call-judgement.js';
import { COMPENSATOR, type RunReport, type RunToExecute } from '../run-execution.js';
import type { TimerCache } from '../timer-cache.js';
import type { UncalledRun, UncalledRuns } from './uncalled-runs.js';

export interface MissedInBulkDeps {
  cache: Pick<TimerCache, 'get'>;
  uncalled: Pick<UncalledRuns, 'settle'>;
  metrics: Pick<Metrics, 'duplicates'>;
  /** The pause of the whole service, while there is one: its runs go the usual way, recorded skipped. */
  paused?: (() => { note: string } | null) | undefined;
  now(): number;
}

/** Runs less late than this are never looked at here: the usual way settles the odd one. */
const LOOK_AFTER_MS = 5000;

/**
 * Takes from a job the runs past saving — scheduled runs, never attempted, that their
 * misfire policy records missed — and settles them together (UncalledRuns) before the
 * rest are executed. Past capacity the catch-up lane is mostly such runs, and settled
 * one by one each costs about what a call does: its claim, lease, outcome and finish.
 */
export class MissedInBulk {
  constructor(private readonly d: MissedInBulkDeps) {}

  /** The reports of the runs taken, by their index in `runs`; the others are left to the executor. */
  async take(runs: readonly RunToExecute[]): Promise<Map<number, RunReport>> {
    const d = this.d;
    const taken = new Map<number, RunReport>();
    const now = d.now();
    const judged: Array<{ index: number; uncalled: UncalledRun }> = [];
    for (const [index, run] of runs.entries()) {
      if (!isFreshScheduled(run) || run.runAt > now - LOOK_AFTER_MS) continue;
      const cached = await d.cache.get(run.timerId, run.version ?? 0);
      const timer = cached.timer;
      // A timer's final run completes it: that is the executor's to do.
      if (timer?.status !== 'active' || (timer.finalRunAt !== null && run.runAt >= timer.finalRunAt))
        continue;
      const verdict = whyNotCall(d, cached, run);
      if (verdict?.status === 'missed') judged.push({ index, uncalled: { run, timer, verdict } });
    }
    if (judged.length === 0) return taken;
    const settled = new Set(await d.uncalled.settle(judged.map((j) => j.uncalled)));
    for (const { index, uncalled } of judged) {
      if (settled.has(uncalled)) {
        taken.set(index, { verdict: 'missed', attempt: 0 });
      } else {
        // Another holds it, or it is finished: this copy goes no further.
        d.metrics.duplicates.inc({ stage: 'claim' });
        taken.set(index, { verdict: 'duplicate' });
      }
    }
    return taken;
  }
}

/** A run its schedule made, with no call behind it and not queued again by the compensator. */
function isFreshScheduled(run: RunToExecute): boolean {
  return run.trigger === undefined && (run.afterAttempt ?? 0) === 0 && run.slice !== COMPENSATOR;
}
