import { misfireDecision } from '../../../domain/plan/misfire.js';
import { supersededReason } from '../../../domain/plan/superseded-run.js';
import { scheduleOf } from '../../../domain/schedule/timer-schedule.js';
import type { RunToExecute } from '../run-execution.js';
import type { CachedTimer } from '../timer-cache.js';

/** Why a run is settled without a call. */
export interface NoCall {
  status: 'skipped' | 'missed';
  reason: string;
}

/** What the judgement reads besides the run and its timer. */
export interface CallJudgementInputs {
  now(): number;
  /** The pause of the whole service, while there is one; absent: never paused. */
  paused?: (() => { note: string } | null) | undefined;
}

/**
 * Why a run must not be called, if it must not. `judgePause` false leaves the pause of
 * the service to be judged at the run's time (a run picked up ahead of it). `successorOf`
 * may stand in for the schedule where the caller knows a later run already.
 */
export function whyNotCall(
  d: CallJudgementInputs,
  cached: CachedTimer,
  run: RunToExecute,
  judgePause = true,
  successorOf?: (runAt: number) => number | null,
): NoCall | null {
  const timer = cached.timer;
  if (!timer) return { status: 'skipped', reason: 'skipped: the timer was deleted' };
  const paused = judgePause ? pauseOf(d, run) : null;
  if (paused) return paused;
  // Run now and retry are a user's explicit asks: they go whatever the timer's status.
  if (run.trigger !== undefined) return null;
  // A completed timer's runs are owed still: its final run may settle before earlier
  // ones (a retry, a re-queue), and completion plans no more, cancels none.
  if (timer.status === 'inactive') return { status: 'skipped', reason: 'skipped: the timer is inactive' };
  // A continuation has a call behind it: a schedule change since then (cron, endAt,
  // calendars) concerns the runs not yet called, and it finishes its retries.
  if ((run.afterAttempt ?? 0) > 0) return null;
  // A calendar listing the run's date since it was planned (its re-plan races the queue).
  const schedule = scheduleOf(timer);
  const skippedBy = schedule.skippedBy(schedule.nominalOf(run.runAt));
  if (skippedBy !== null) return { status: 'skipped', reason: `skipped: calendar ${skippedBy.join(', ')}` };
  const superseded = supersededReason(timer, run.runAt, run.version);
  if (superseded) return { status: 'skipped', reason: superseded };
  const now = d.now();
  const decision = misfireDecision(
    timer.misfirePolicy,
    timer.misfireThresholdMs,
    run.runAt,
    now,
    successorOf ??
      ((at) => {
        const [next] = scheduleOf(timer).next(at, 1);
        return next ?? null;
      }),
  );
  if (decision === 'fire') return null;
  return {
    status: 'missed',
    reason: `missed: picked up ${now - run.runAt} ms after its time (misfire policy ${timer.misfirePolicy})`,
  };
}

/**
 * Whether the pause of the whole service holds the run back. Run now and retry are a
 * user's explicit asks and go through it; scheduled runs and backfills do not.
 */
export function pauseOf(d: CallJudgementInputs, run: RunToExecute): NoCall | null {
  if (run.trigger === 'manual' || run.trigger === 'retry') return null;
  const paused = d.paused?.();
  return paused ? { status: 'skipped', reason: `paused: ${paused.note}` } : null;
}
