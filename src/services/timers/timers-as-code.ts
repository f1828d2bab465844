import {
  type ApplyStep,
  MAX_APPLY_TIMERS,
  type PlannedStep,
  planApply,
  planIdOf,
  presentablePlan,
} from '../../domain/apply-plan.js';
import { type AuditDraft, type ChangeAuthor, timerChange } from '../../domain/audit.js';
import { replanFrom } from '../../domain/plan/replan-from.js';
import type { Calendar } from '../../domain/schedule/calendar.js';
import { resolvedCronOf } from '../../domain/schedule/hashed-cron.js';
import { callbackProblem, changesSchedule, type Timer, type TimerDraft } from '../../domain/timer.js';
import { type DefinitionDiff, diffDefinition } from '../../domain/timer-definition.js';
import { matchesVersion, type VersionMatch } from '../../domain/version-match.js';
import { ErrorCode, versionConflict, XtimerError } from '../../errors.js';
import type { Transaction } from '../../storage/db/client.js';
import type { OutboxMark } from '../../storage/db/plan-outbox-repository.js';
import type { PlannedRun } from '../../storage/db/tasks/task-repository.js';
import { NO_CHANGE, type PlanChange } from '../planning/run-planner.js';
import { type AccessScope, SET_NOTIFY } from './access.js';
import type { TimerDefinitions } from './timer-definitions.js';
import {
  applyPatch,
  atIndex,
  checkRoom,
  checkWindow,
  hasRunsLeft,
  noRunsLeft,
  skipDatesFrom,
} from './timer-rules.js';
import { APP_LOCK_TTL_MS, type TimerStore } from './timer-store.js';

/** What a PUT of a timer by name did. */
export type UpsertOutcome = 'created' | 'replaced' | 'unchanged';

/** What an apply did (or, on a dry run, would do). */
export interface ApplyResult {
  plan: ApplyStep[];
  applied: boolean;
  /** The plan's id (planIdOf): an apply given it carries out this plan or none. */
  planId: string;
}

export interface ApplyOptions {
  /** Delete the app's timers that the set leaves out. */
  prune: boolean;
  /** Only plan: change nothing. */
  dryRun: boolean;
  /** Carry out only the plan of this id (a dry run's), VERSION_CONFLICT if the plan is another now. */
  planId?: string | undefined;
}

/** How many times an upsert or apply is tried again when the timers change between its plan and its lock. */
const STALE_RETRIES = 3;

/**
 * Timers as code: the idempotent PUT by name and the declarative apply of an app's
 * whole set. A definition equal to the stored one changes nothing; the rest is planned
 * without the app's mutex (the policy checks may look up DNS) and carried out under it
 * if the timers are still as they were read, else planned again.
 */
export class TimersAsCode {
  constructor(
    private readonly store: TimerStore,
    /** Creates the timers a set adds, as a create does. */
    private readonly definitions: Pick<TimerDefinitions, 'insertIn'>,
  ) {}

  /**
   * PUT by name: creates the app's timer `draft.name`, or replaces its definition with
   * `draft`. A definition equal to the stored one changes nothing (no version bump, no
   * re-plan, no audit entry). With `ifMatch`, the timer must exist at one of its versions.
   */
  async upsert(
    scope: AccessScope,
    given: TimerDraft,
    ifMatch?: VersionMatch,
  ): Promise<{ timer: Timer; outcome: UpsertOutcome }> {
    scope.useApp(given.app);
    await scope.spend();
    await this.keepsNotify(scope, given.app, [given]);
    const by = scope.author;
    const { deps } = this.store;
    const what = `timer ${JSON.stringify(given.name)} of app ${given.app}`;
    for (let attempt = 0; ; attempt++) {
      // Its calendars' dates (CALENDAR_NOT_FOUND for one the app lacks), as a create or PATCH reads them.
      const calendars = new Map(
        (await this.store.calendars.findMany(given.app, given.skipCalendars)).map((c) => [c.name, c]),
      );
      const draft = { ...given, skipDates: skipDatesFrom(given.app, given.skipCalendars, calendars) };
      const seen = await this.store.timers.findByName(draft.app, draft.name);
      if (ifMatch && !(seen && matchesVersion(ifMatch, seen.version))) {
        throw versionConflict(what, seen?.version ?? null);
      }
      const diff = seen ? diffDefinition(seen, draft) : null;
      if (seen && !diff) return { timer: seen, outcome: 'unchanged' };
      await this.checkDefinition(draft, seen, diff, deps.now());
      const done = await this.store.underAppLock(draft.app, () =>
        deps.database.transaction(async (tx) => {
          // Changed since the diff was made, or its calendars were: their rows locked first, as a
          // calendar PUT locks them before the timers that name them.
          if (!(await this.store.calendarsStill(tx, [draft], calendars))) return null;
          const timers = this.store.timersIn(tx);
          const current = await timers.findByName(draft.app, draft.name, { forUpdate: true });
          if ((current?.version ?? null) !== (seen?.version ?? null)) return null;
          if (!current) {
            const { created, planned, marks } = await this.definitions.insertIn(tx, [draft], by);
            const change = { planned, cancelled: [] };
            return { id: created[0]!.id, change, marks, outcome: 'created' as const };
          }
          const change = await this.replaceIn(tx, current, draft, diff!, by, deps.now());
          const marks = await deps.publisher.mark(tx, [current.id]);
          return { id: current.id, change, marks, outcome: 'replaced' as const };
        }),
      );
      if (done === null) {
        if (attempt < STALE_RETRIES) continue;
        throw new XtimerError(ErrorCode.APP_BUSY, `${what} keeps changing; retry shortly`);
      }
      if (done.outcome === 'created') {
        const timer = await this.store.get(done.id);
        // Nothing to announce: no process can have cached a timer that did not exist.
        await deps.publisher.publish({
          marks: done.marks,
          timers: timer.status === 'active' ? [timer] : [],
          announce: [],
          change: done.change,
        });
        return { timer, outcome: 'created' };
      }
      return { timer: await this.store.afterCommit(done.id, done.change, done.marks), outcome: 'replaced' };
    }
  }

  /**
   * Declarative apply: makes `app`'s timers the set `drafts` (each one's name unique) —
   * creates the missing, replaces the changed, leaves the equal alone and, with `prune`,
   * deletes the rest. All or nothing, in one transaction under the app's mutex; a dry run
   * only plans. A timer that may not be as asked fails it naming its index (`timers.<i>`).
   * One call of the rate limit, however many timers.
   */
  async apply(
    scope: AccessScope,
    app: string,
    drafts: readonly TimerDraft[],
    options: ApplyOptions,
  ): Promise<ApplyResult> {
    scope.useApp(app);
    await scope.spend();
    await this.keepsNotify(scope, app, drafts, options.prune);
    return this.applyAs(app, drafts, options, scope.author);
  }

  /** apply, once the caller's access is checked. */
  private async applyAs(
    app: string,
    given: readonly TimerDraft[],
    options: ApplyOptions,
    by: ChangeAuthor | undefined,
  ): Promise<ApplyResult> {
    if (given.length > MAX_APPLY_TIMERS) {
      throw new XtimerError(ErrorCode.VALIDATION_FAILED, `timers: at most ${MAX_APPLY_TIMERS} per apply`);
    }
    const first = new Map<string, number>();
    given.forEach((d, i) => {
      if (d.app !== app) throw atIndex(new XtimerError(ErrorCode.INVALID_APP, `app: must be ${app}`), i);
      const earlier = first.get(d.name);
      if (earlier !== undefined) {
        const message = `name: ${JSON.stringify(d.name)} is also timers.${earlier}'s`;
        throw atIndex(new XtimerError(ErrorCode.VALIDATION_FAILED, message), i);
      }
      first.set(d.name, i);
    });
    const { deps } = this.store;
    for (let attempt = 0; ; attempt++) {
      // Each timer's calendars' dates (CALENDAR_NOT_FOUND naming its index), read once for the app.
      const calendars = given.some((d) => d.skipCalendars.length > 0)
        ? new Map((await this.store.calendars.list(app)).map((c) => [c.name, c]))
        : new Map<string, Calendar>();
      const drafts = given.map((d, i) => {
        try {
          return { ...d, skipDates: skipDatesFrom(app, d.skipCalendars, calendars) };
        } catch (err) {
          throw atIndex(err, i);
        }
      });
      const seen = await this.store.timers.listByApp(app);
      const steps = planApply(seen, drafts, options.prune);
      await this.checkSteps(steps, seen.length, deps.now());
      const plan = presentablePlan(steps);
      const planId = planIdOf(steps);
      if (options.planId !== undefined && options.planId !== planId)
        throw planChanged(options.planId, planId);
      if (options.dryRun) return { plan, applied: false, planId };
      if (steps.every((s) => s.action === 'unchanged')) return { plan, applied: true, planId };
      // A big apply holds the mutex longer than a single change.
      const lockMs = Math.max(APP_LOCK_TTL_MS, drafts.length * 40);
      const done = await this.store.underAppLocks([app], lockMs, async () => {
        const result = await deps.database.transaction(async (tx) => {
          // Changed since the plan was made, or their calendars were: their rows locked first, as
          // a calendar PUT locks them before the timers that name them.
          if (!(await this.store.calendarsStill(tx, drafts, calendars))) return null;
          const current = await this.store.timersIn(tx).listByApp(app, { forUpdate: true });
          if (!sameVersions(current, seen)) return null;
          return this.carryOut(tx, steps, by, new Map(current.map((t) => [t.id, t])));
        });
        for (const id of result?.deleted ?? []) await this.store.tasks.deleteAllForTimer(id);
        return result;
      });
      if (done === null) {
        if (attempt < STALE_RETRIES) continue;
        throw new XtimerError(ErrorCode.APP_BUSY, `app ${app}'s timers keep changing; retry shortly`);
      }
      await deps.publisher.publish({
        marks: done.marks,
        timers: await this.store.timers.findByIds(done.marks.map((m) => m.timerId)),
        deleted: done.deleted,
        announce: [...done.changed, ...done.deleted],
        change: done.change,
      });
      return { plan, applied: true, planId };
    }
  }

  /** Carries out an apply's steps in `tx`: deletes first (they make room under MAX_TIMERS_PER_APP), then creates, then updates. */
  private async carryOut(
    tx: Transaction,
    steps: readonly PlannedStep[],
    by: ChangeAuthor | undefined,
    locked: ReadonlyMap<number, Timer>,
  ): Promise<{ change: PlanChange; changed: number[]; deleted: number[]; marks: OutboxMark[] }> {
    const { deps } = this.store;
    const planned: PlannedRun[] = [];
    const cancelled: PlanChange['cancelled'] = [];
    const deleted: number[] = [];
    const changed: number[] = [];
    for (const step of steps) {
      if (step.action !== 'delete') continue;
      const id = step.current.id;
      await this.store.timersIn(tx).delete(id);
      await this.store.audit(tx, by, 'delete', step.current, step.current, null);
      cancelled.push(...(await deps.planner.cancel(id, 0, this.store.tasksIn(tx))));
      deleted.push(id);
    }
    const creates = steps.flatMap((s) => (s.action === 'create' ? [s] : []));
    const created: number[] = [];
    if (creates.length > 0) {
      try {
        const inserted = await this.definitions.insertIn(
          tx,
          creates.map((s) => s.desired),
          by,
        );
        planned.push(...inserted.planned);
        created.push(...inserted.marks.map((m) => m.timerId));
      } catch (err) {
        const index = (err as XtimerError).details?.[0]?.index;
        if (index === undefined) throw err;
        throw atIndex(
          new XtimerError((err as XtimerError).code, (err as Error).message),
          creates[index]!.index,
        );
      }
    }
    const entries: AuditDraft[] = [];
    for (const step of steps) {
      if (step.action !== 'update') continue;
      try {
        // As locked: the same version as read for the plan, but what a version does not cover
        // (runs_planned, moved on by the migrator meanwhile) as it is now.
        const change = await this.replaceIn(
          tx,
          locked.get(step.current.id) ?? step.current,
          step.desired,
          step.diff,
          by,
          deps.now(),
          entries,
        );
        planned.push(...change.planned);
        cancelled.push(...change.cancelled);
        changed.push(step.current.id);
      } catch (err) {
        throw atIndex(err, step.index);
      }
    }
    await deps.audit.record(entries, tx);
    const marks = await deps.publisher.mark(tx, [...created, ...changed, ...deleted]);
    return { change: { planned, cancelled }, changed, deleted, marks };
  }

  /**
   * Replaces `current`'s definition with `desired` (their difference `diff`) in `tx`,
   * which holds its row: one version bump, one audit entry, and the runs re-planned as
   * an update, an enable or a disable would.
   */
  private async replaceIn(
    tx: Transaction,
    current: Timer,
    desired: TimerDraft,
    diff: DefinitionDiff,
    by: ChangeAuthor | undefined,
    now: number,
    /** Where an apply gathers its audit entries, written together; absent: written here. */
    entries?: AuditDraft[],
  ): Promise<PlanChange> {
    const { deps } = this.store;
    const timers = this.store.timersIn(tx);
    const id = current.id;
    const merged = applyPatch(current, diff.patch);
    const problem = callbackProblem(merged.callback);
    if (problem) throw new XtimerError(ErrorCode.VALIDATION_FAILED, problem);
    let status = diff.status ?? current.status;
    // A completed timer defined anew (a later `at`, a wider window) fires again if it now has runs left.
    if (current.status === 'completed' && desired.status === 'active') {
      status = hasRunsLeft({ ...merged, status: 'active' }, now) ? 'active' : 'completed';
    }
    await timers.update({ ...merged, status });
    const wasActive = current.status === 'active';
    // A definition that disables the timer pauses it (no note, no `until`), as a disable
    // does; one that makes it active again ends its pause, as an enable does.
    let pause: Pick<Timer, 'pausedNote' | 'pausedAt' | 'pausedUntil' | 'failureStreak'> = merged;
    if (wasActive && status === 'inactive') {
      await timers.setPause(id, { note: null, at: now, until: null });
      pause = { pausedNote: null, pausedAt: now, pausedUntil: null, failureStreak: 0 };
    } else if (!wasActive && status === 'active') {
      await timers.setPause(id, null);
      pause = { pausedNote: null, pausedAt: null, pausedUntil: null, failureStreak: 0 };
    }
    // As stored: the row is locked, and the update changed exactly these (an apply saves the re-read).
    const updated: Timer = {
      ...merged,
      ...pause,
      status,
      version: current.version + 1,
      updatedAt: new Date(),
    };
    if (by) {
      const entry = timerChange(by, 'update', current, current, updated);
      if (entries) entries.push(entry);
      else await deps.audit.record(entry, tx);
    }
    if (wasActive && status !== 'active') {
      // Its runs are stopped once this commits (RunStopper, by the publisher).
      await timers.startPlan(id, now, {
        plannedUntil: null,
        runsPlanned: current.runsPlanned,
        finalRunAt: null,
      });
      return NO_CHANGE;
    }
    const tasks = this.store.tasksIn(tx);
    if (!wasActive && status === 'active') {
      if (!hasRunsLeft(updated, now)) throw noRunsLeft(id);
      // As in an enable: the disable's stop first.
      const stopped = await deps.stopper.stopIn(tx, current, current.pausedAt ?? now);
      const planned = await deps.planner.plan(
        updated,
        now,
        tasks,
        timers,
        updated.maxRuns === null ? 0 : stopped.length,
      );
      return { planned, cancelled: stopped };
    }
    if (status !== 'active' || !changesSchedule(diff.patch)) return NO_CHANGE;
    const cancelled = await deps.stopper.cancelFrom(tx, id, now);
    const planned = await deps.planner.plan(
      updated,
      replanFrom(current, updated, now),
      tasks,
      timers,
      cancelled.length,
      now,
    );
    return { planned, cancelled };
  }

  /** The checks a create (no `current`) or a replacement makes of the definition it stores. */
  private async checkDefinition(
    desired: TimerDraft,
    current: Timer | null,
    diff: DefinitionDiff | null,
    now: number,
  ): Promise<void> {
    if (!current || !diff) {
      checkWindow(desired, now);
      await this.store.checkPolicy(desired, now);
      return;
    }
    const merged = applyPatch(current, diff.patch);
    checkWindow(merged, now, diff.patch);
    await this.store.checkPolicy(merged, now, diff.patch);
  }

  /**
   * An apply's checks, each failure naming its timer's index, so that a dry run refuses
   * what carrying the steps out would: the definitions, an enable with no run left, and
   * MAX_TIMERS_PER_APP once the deletes made room (`has`: the app's timers now). Timers
   * alike in schedule and target share one policy check (a set is often one cron and one
   * receiver).
   */
  private async checkSteps(steps: readonly PlannedStep[], has: number, now: number): Promise<void> {
    const count = (action: PlannedStep['action']) => steps.filter((s) => s.action === action).length;
    const app = steps.find((s) => s.action === 'create')?.desired.app;
    if (app !== undefined) {
      checkRoom(app, has - count('delete'), count('create'), this.store.deps.policy?.maxTimersPerApp ?? 0);
    }
    for (const step of steps) {
      if (step.action !== 'update' || step.current.status !== 'inactive') continue;
      if ((step.diff.status ?? step.current.status) !== 'active') continue;
      const merged = { ...applyPatch(step.current, step.diff.patch), status: 'active' as const };
      if (!hasRunsLeft(merged, now)) throw atIndex(noRunsLeft(step.current.id), step.index);
    }
    const checked = new Set<string>();
    const checks = await Promise.allSettled(
      steps.map(async (step) => {
        if (step.action !== 'create' && step.action !== 'update') return;
        const patch = step.action === 'update' ? step.diff.patch : undefined;
        const timer = step.action === 'update' ? applyPatch(step.current, step.diff.patch) : step.desired;
        checkWindow(timer, now, patch);
        // What checkPolicy looks at: the schedule, the callback target, the notify target.
        const alike = JSON.stringify([
          !patch || changesSchedule(patch) ? [resolvedCronOf(timer), timer.everyMs, timer.timezone] : null,
          !patch || patch.callback?.url !== undefined ? timer.callback.url : null,
          !patch || patch.notify ? (timer.notify?.url ?? null) : null,
        ]);
        if (checked.has(alike)) return;
        checked.add(alike);
        await this.store.checkPolicy(timer, now, patch);
      }),
    );
    const failed = checks.findIndex((c) => c.status === 'rejected');
    if (failed < 0) return;
    const step = steps[failed] as PlannedStep & { index: number };
    throw atIndex((checks[failed] as PromiseRejectedResult).reason, step.index);
  }

  /**
   * A key in its grace period may send definitions only with the notify their timers
   * already have (RETIRED_KEY otherwise): a dry run of the set says what would change. Any
   * notify it can so send is one the app's owner set.
   */
  private async keepsNotify(
    scope: AccessScope,
    app: string,
    drafts: readonly TimerDraft[],
    prune = false,
  ): Promise<void> {
    if (scope.actor.kind !== 'app' || !scope.actor.retired) return;
    // With the apply's prune: its deletes make the room its creates are checked against.
    const { plan } = await this.applyAs(app, drafts, { prune, dryRun: true }, undefined);
    const notifies = new Set(drafts.filter((d) => d.notify !== null).map((d) => d.name));
    const changes = plan.some((step) =>
      step.action === 'create' ? notifies.has(step.name) : step.changes?.notify !== undefined,
    );
    if (changes) scope.notRetired(SET_NOTIFY);
  }
}

/** An apply asked to carry out a plan that is no longer the one it would make. */
function planChanged(asked: string, now: string): XtimerError {
  return new XtimerError(
    ErrorCode.VERSION_CONFLICT,
    `the app's timers or the set changed since plan ${asked} was made; plan again and apply what it shows`,
    [{ path: 'planId', message: `the plan is now ${now}` }],
  );
}

/** Do two reads of an app's timers hold the same timers at the same versions? */
function sameVersions(a: readonly Timer[], b: readonly Timer[]): boolean {
  if (a.length !== b.length) return false;
  const versions = new Map(a.map((t) => [t.id, t.version]));
  return b.every((t) => versions.get(t.id) === t.version);
}
