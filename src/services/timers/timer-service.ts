import type { TargetGuard } from '../../callback/target-guard.js';
import { MAX_APPLY_TIMERS, type PlannedStep, planApply, presentablePlan } from '../../domain/apply-plan.js';
import {
  type AuditAction,
  type AuditDraft,
  auditEntry,
  type ChangeAuthor,
  timerChange,
} from '../../domain/audit.js';
import { ScheduleTooCostlyError } from '../../domain/evaluation-budget.js';
import { parseTaskKey, taskKey } from '../../domain/plan/task-key.js';
import { type Calendar, skipDatesOf } from '../../domain/schedule/calendar.js';
import { CronSyntaxError } from '../../domain/schedule/cron-schedule.js';
import { scheduleOf } from '../../domain/schedule/timer-schedule.js';
import {
  autoPauseNote,
  callbackProblem,
  changesSchedule,
  type PauseRequest,
  type Task,
  type TaskStatus,
  type Timer,
  type TimerDraft,
  type TimerPatch,
} from '../../domain/timer.js';
import { type DefinitionDiff, diffDefinition } from '../../domain/timer-definition.js';
import { matchesVersion, type VersionMatch } from '../../domain/version-match.js';
import { ErrorCode, timerNotFound, versionConflict, XtimerError } from '../../errors.js';
import { groupBy } from '../../lib/group-by.js';
import { GroupCommit } from '../../lib/group-commit.js';
import { CalendarRepository } from '../../storage/db/calendar-repository.js';
import type { Database, Transaction } from '../../storage/db/client.js';
import type { OutboxMark } from '../../storage/db/plan-outbox-repository.js';
import { type PlannedRun, TaskRepository } from '../../storage/db/task-repository.js';
import { TimerRepository } from '../../storage/db/timer-repository.js';
import type { Keys } from '../../storage/redis/keys.js';
import type { RateLimiter } from '../../storage/redis/rate-limiter.js';
import type { RedisLock } from '../../storage/redis/redis-lock.js';
import type { RunClaims } from '../../storage/redis/runs/run-claims.js';
import type { AuditService } from '../apps/audit-service.js';
import type { PlanPublisher } from '../planning/plan-publisher.js';
import { NO_CHANGE, type PlanChange, type RunPlanner } from '../planning/run-planner.js';
import type { RunStopper } from '../planning/run-stopper.js';
import { type Actor, actorName } from './access.js';
import { BackfillService } from './backfill-service.js';
import { decodeCursor, type Page, pageOf } from './page.js';
import { ScopedTimers } from './scoped-timers.js';
import type {
  ApplyOptions,
  ApplyResult,
  Numbered,
  NumberedTaskQuery,
  NumberedTimerQuery,
  QueuedRunView,
  TaskQuery,
  TimerQuery,
  TimerUseCases,
  UpsertOutcome,
} from './timer-use-cases.js';

/** The per-app mutex: 3 s, waited for up to as long. */
const APP_LOCK_TTL_MS = 3000;
/** How long a change waits for the app's mutex before answering APP_BUSY (a busy app queues its changes). */
const APP_LOCK_WAIT_MS = 10_000;

export interface TimerServiceDeps {
  database: Database;
  lock: RedisLock;
  keys: Keys;
  planner: RunPlanner;
  /** Takes each committed change to Redis (copies, announcements, slices), or leaves it to the repair. */
  publisher: PlanPublisher;
  /** Stops a disabled timer's runs in an enable's transaction, before it plans again. */
  stopper: Pick<RunStopper, 'stopIn'>;
  /** The runs' claim records: a retried run's is reopened. */
  claims: Pick<RunClaims, 'reopen'>;
  /** Tells every process a timer changed (their caches drop it). */
  announce(timerId: number): Promise<void>;
  /** Records every change made on a user's behalf (a ChangeAuthor given), in the change's transaction. */
  audit: AuditService;
  now(): number;
  /** Limits on what a timer may be (docs/security.md); absent = none. */
  policy?: TimerPolicy | undefined;
  /** TASK_RETENTION_DAYS: how far back the run history goes (a backfill reaches no further). */
  historyDays?: number | undefined;
}

export interface TimerPolicy {
  /** MAX_TIMERS_PER_APP (0 = no limit). */
  maxTimersPerApp: number;
  /** MIN_RUN_INTERVAL_MS: the shortest allowed time between two runs of one timer (0 = any). */
  minRunIntervalMs: number;
  /** The SSRF guard over callback URLs. */
  guard?: TargetGuard | undefined;
  /** APP_RATE_LIMIT_PER_MINUTE over mutating calls made with an app key; absent = no limit. */
  limiter?: RateLimiter | undefined;
}

/** How many times an upsert or apply is tried again when the timers change between its plan and its lock. */
const STALE_RETRIES = 3;

/** Most creates stored together, and how many such batches may be under way at once. */
const CREATE_BATCH = 100;
const CREATES_IN_FLIGHT = 2;

/** A timer whose final run was due this long ago and has settled is completed by the sweep. */
const ENDED_GRACE_MS = 60_000;

/** Who the audit log names for changes xtimer makes itself (a pause that ends, an auto-pause). */
export const SYSTEM_AUTHOR: ChangeAuthor = Object.freeze({ actor: 'system', batchId: null });

/** How many run-now instants past `now` are tried when another run holds the millisecond. */
const MANUAL_RUN_TRIES = 1000;

/** `obj` without its undefined properties (a PATCH's absent fields leave values alone). */
function defined<T extends object>(
  obj: T | undefined,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(obj ?? {}).filter(([, v]) => v !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>;
  }>;
}

/** Timer use cases: what the native and the xtimer-compatible API both call. */
export class TimerService implements TimerUseCases {
  private readonly timers: TimerRepository;
  private readonly tasks: TaskRepository;
  private readonly calendars: CalendarRepository;

  /** Concurrent creates stored together (one lock round, transaction and INSERT each batch). */
  private readonly creates = new GroupCommit<{ draft: TimerDraft; by: ChangeAuthor | undefined }, Timer>(
    (items) => this.storeEach(items),
    CREATE_BATCH,
    CREATES_IN_FLIGHT,
  );

  /** Backfills of the timers' schedules over past ranges. */
  readonly backfills: BackfillService;

  constructor(private readonly deps: TimerServiceDeps) {
    this.backfills = new BackfillService(deps);
    this.timers = new TimerRepository(deps.database.db);
    this.tasks = new TaskRepository(deps.database.db, deps.database.pool);
    this.calendars = new CalendarRepository(deps.database.db);
  }

  /**
   * This service as `actor` may use it: an app key reaches only its own app's timers.
   * Its changes are audited under the actor's name, in the batch `batchId` if one is given.
   */
  as(actor: Actor, options: { batchId?: string | undefined } = {}): ScopedTimers {
    const author: ChangeAuthor = { actor: actorName(actor), batchId: options.batchId ?? null };
    return new ScopedTimers(this, actor, author, this.deps.policy?.limiter, this.deps.now);
  }

  async create(given: TimerDraft, by?: ChangeAuthor): Promise<Timer> {
    const draft = await this.withSkipDates(given);
    const now = this.deps.now();
    checkWindow(draft, now);
    await this.checkPolicy(draft, now);
    return this.creates.add({ draft, by });
  }

  /**
   * Creates timers all or nothing (POST /timers/batch): if one may not be created, the
   * call fails naming its index (`timers.<i>`) and none is stored. One transaction, one
   * multi-row INSERT of the timers and one of their near-term runs.
   */
  async createMany(given: readonly TimerDraft[], by?: ChangeAuthor): Promise<Timer[]> {
    const drafts = await Promise.all(
      given.map((d, i) => this.withSkipDates(d).catch((err: unknown) => Promise.reject(atIndex(err, i)))),
    );
    const now = this.deps.now();
    const first = new Map<string, number>();
    drafts.forEach((d, i) => {
      const earlier = first.get(`${d.app}\0${d.name}`);
      if (earlier !== undefined) {
        throw atIndex(
          new XtimerError(
            ErrorCode.VALIDATION_FAILED,
            `name: ${JSON.stringify(d.name)} is also timers.${earlier}'s`,
          ),
          i,
        );
      }
      first.set(`${d.app}\0${d.name}`, i);
    });
    // Timers alike in schedule and targets share one policy check (a batch is often one
    // cron and one receiver): its failure is the first such timer's, the lowest index.
    const checked = new Set<string>();
    const checks = await Promise.allSettled(
      drafts.map(async (draft) => {
        checkWindow(draft, now);
        const alike = `${draft.cron}\0${draft.everyMs}\0${draft.timezone}\0${draft.callback.url}\0${draft.notify?.url}`;
        if (checked.has(alike)) return;
        checked.add(alike);
        await this.checkPolicy(draft, now);
      }),
    );
    const failed = checks.findIndex((c) => c.status === 'rejected');
    if (failed >= 0) throw atIndex((checks[failed] as PromiseRejectedResult).reason, failed);
    try {
      return await this.store(drafts, by);
    } catch (err) {
      // A name taken in MySQL: the repository says which timer's.
      const index = (err as { details?: { index?: number } }).details?.index;
      throw index === undefined
        ? err
        : atIndex(new XtimerError((err as XtimerError).code, (err as Error).message), index);
    }
  }

  /**
   * Stores unrelated creates together; if that fails for one of them (a name taken, an
   * app's limit reached), each alone, so each gets its own answer.
   */
  private async storeEach(
    items: ReadonlyArray<{ draft: TimerDraft; by: ChangeAuthor | undefined }>,
  ): Promise<Array<PromiseSettledResult<Timer>>> {
    const drafts = items.map((i) => i.draft);
    try {
      const stored = await this.store(
        drafts,
        items.map((i) => i.by),
      );
      return stored.map((value) => ({ status: 'fulfilled', value }));
    } catch (err) {
      const itsOwn = (err as { details?: { index?: number } }).details?.index !== undefined;
      const limit = err instanceof XtimerError && err.code === ErrorCode.TIMER_LIMIT_REACHED;
      if (drafts.length === 1 || !(itsOwn || limit)) throw err;
      const alone: Array<PromiseSettledResult<Timer>> = [];
      for (const { draft, by } of items) {
        try {
          alone.push({ status: 'fulfilled', value: (await this.store([draft], by))[0]! });
        } catch (reason) {
          alone.push({ status: 'rejected', reason });
        }
      }
      return alone;
    }
  }

  /**
   * Stores new timers under their apps' mutexes, with the first plan of the active ones
   * (their near term, changeHorizon), then publishes those to Redis.
   */
  private async store(
    drafts: readonly TimerDraft[],
    by: ChangeAuthor | undefined | ReadonlyArray<ChangeAuthor | undefined>,
  ): Promise<Timer[]> {
    const apps = [...new Set(drafts.map((d) => d.app))];
    // A big batch holds its mutexes longer than a single create.
    const lockMs = Math.max(APP_LOCK_TTL_MS, drafts.length * 10);
    const { created, planned, marks } = await this.underAppLocks(apps, lockMs, () =>
      this.deps.database.transaction((tx) => this.insertIn(tx, drafts, by)),
    );
    // Nothing to announce: no process can have cached a timer that did not exist.
    await this.deps.publisher.publish({
      marks,
      timers: created.filter((t) => t.status === 'active'),
      announce: [],
      change: { planned, cancelled: [] },
    });
    return created;
  }

  /**
   * Inserts new timers in `tx` (their apps' mutexes held), with the first plan of the
   * active ones (their near term, changeHorizon) and an audit entry each.
   */
  private async insertIn(
    tx: Transaction,
    drafts: readonly TimerDraft[],
    by: ChangeAuthor | undefined | ReadonlyArray<ChangeAuthor | undefined>,
  ): Promise<{ created: Timer[]; planned: PlannedRun[]; marks: OutboxMark[] }> {
    // One author for all (a batch), or one per draft (creates stored together).
    const authorOf = (i: number) => (Array.isArray(by) ? by[i] : (by as ChangeAuthor | undefined));
    // Read once the locks are held: the plans start when the change does, not when it was asked for.
    const now = this.deps.now();
    await this.checkRoomFor(drafts, tx);
    const rows = drafts.map((draft) =>
      draft.status === 'active'
        ? { draft, plannedFrom: now, plan: this.deps.planner.firstPlan(draft, now) }
        : {
            draft,
            plannedFrom: null,
            plan: { runAts: [], plannedUntil: null, runsPlanned: 0, finalRunAt: null },
          },
    );
    const created = await this.timersIn(tx).insertMany(rows, new Date());
    // A jittered run's instant depends on the timer's id: plan those once it has one.
    for (const [i, timer] of created.entries()) {
      if (timer.jitterMs === 0 || timer.status !== 'active') continue;
      const plan = this.deps.planner.firstPlan(timer, now);
      rows[i]!.plan = plan;
      await this.timersIn(tx).startPlan(timer.id, now, plan);
    }
    const entries = created.flatMap((t, i) => {
      const author = authorOf(i);
      return author ? [timerChange(author, 'create', t, null, t)] : [];
    });
    await this.deps.audit.record(entries, tx);
    const planned = created.flatMap((timer, i) => this.deps.planner.runsOf(timer, rows[i]!.plan));
    await this.tasksIn(tx).insertRuns(planned);
    const marks = await this.deps.publisher.mark(
      tx,
      created.filter((t) => t.status === 'active').map((t) => t.id),
    );
    return { created, planned, marks };
  }

  /**
   * PUT by name: creates the app's timer `draft.name`, or replaces its definition with
   * `draft`. A definition equal to the stored one changes nothing (no version bump, no
   * re-plan, no audit entry). With `ifMatch`, the timer must exist at one of its versions.
   */
  async upsert(
    given: TimerDraft,
    by?: ChangeAuthor,
    ifMatch?: VersionMatch,
  ): Promise<{ timer: Timer; outcome: UpsertOutcome }> {
    // Its calendars' dates (CALENDAR_NOT_FOUND for one the app lacks), as a create or PATCH reads them.
    const draft = await this.withSkipDates(given);
    const what = `timer ${JSON.stringify(draft.name)} of app ${draft.app}`;
    for (let attempt = 0; ; attempt++) {
      // Planned and checked without the mutex (the policy checks may look up DNS), then done
      // under it, if the timer is still as it was read: otherwise planned again.
      const seen = await this.timers.findByName(draft.app, draft.name);
      if (ifMatch && !(seen && matchesVersion(ifMatch, seen.version))) {
        throw versionConflict(what, seen?.version ?? null);
      }
      const diff = seen ? diffDefinition(seen, draft) : null;
      if (seen && !diff) return { timer: seen, outcome: 'unchanged' };
      await this.checkDefinition(draft, seen, diff, this.deps.now());
      const done = await this.underAppLock(draft.app, () =>
        this.deps.database.transaction(async (tx) => {
          const current = await this.timersIn(tx).findByName(draft.app, draft.name, { forUpdate: true });
          if ((current?.version ?? null) !== (seen?.version ?? null)) return null;
          if (!current) {
            const { created, planned, marks } = await this.insertIn(tx, [draft], by);
            const change = { planned, cancelled: [] };
            return { id: created[0]!.id, change, marks, outcome: 'created' as const };
          }
          const change = await this.replaceIn(tx, current, draft, diff!, by, this.deps.now());
          const marks = await this.deps.publisher.mark(tx, [current.id]);
          return { id: current.id, change, marks, outcome: 'replaced' as const };
        }),
      );
      if (done === null) {
        if (attempt < STALE_RETRIES) continue;
        throw new XtimerError(ErrorCode.APP_BUSY, `${what} keeps changing; retry shortly`);
      }
      if (done.outcome === 'created') {
        const timer = await this.get(done.id);
        // Nothing to announce: no process can have cached a timer that did not exist.
        await this.deps.publisher.publish({
          marks: done.marks,
          timers: timer.status === 'active' ? [timer] : [],
          announce: [],
          change: done.change,
        });
        return { timer, outcome: 'created' };
      }
      return { timer: await this.afterCommit(done.id, done.change, done.marks), outcome: 'replaced' };
    }
  }

  /**
   * Declarative apply: makes `app`'s timers the set `drafts` (each one's name unique) —
   * creates the missing, replaces the changed, leaves the equal alone and, with `prune`,
   * deletes the rest. All or nothing, in one transaction under the app's mutex; a dry run
   * only plans. A timer that may not be as asked fails it naming its index (`timers.<i>`).
   */
  async apply(
    app: string,
    given: readonly TimerDraft[],
    options: ApplyOptions,
    by?: ChangeAuthor,
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
    // Each timer's calendars' dates (CALENDAR_NOT_FOUND naming its index), read once for the app.
    const calendars = given.some((d) => d.skipCalendars.length > 0)
      ? new Map((await this.calendars.list(app)).map((c) => [c.name, c]))
      : new Map<string, Calendar>();
    const drafts = given.map((d, i) => {
      try {
        return { ...d, skipDates: skipDatesFrom(app, d.skipCalendars, calendars) };
      } catch (err) {
        throw atIndex(err, i);
      }
    });
    for (let attempt = 0; ; attempt++) {
      const seen = await this.timers.listByApp(app);
      const steps = planApply(seen, drafts, options.prune);
      await this.checkSteps(steps, this.deps.now());
      const plan = presentablePlan(steps);
      if (options.dryRun) return { plan, applied: false };
      if (steps.every((s) => s.action === 'unchanged')) return { plan, applied: true };
      // A big apply holds the mutex longer than a single change.
      const lockMs = Math.max(APP_LOCK_TTL_MS, drafts.length * 40);
      const done = await this.underAppLocks([app], lockMs, async () => {
        const result = await this.deps.database.transaction(async (tx) => {
          const current = await this.timersIn(tx).listByApp(app, { forUpdate: true });
          if (!sameVersions(current, seen)) return null;
          return this.carryOut(tx, steps, by);
        });
        for (const id of result?.deleted ?? []) await this.tasks.deleteAllForTimer(id);
        return result;
      });
      if (done === null) {
        if (attempt < STALE_RETRIES) continue;
        throw new XtimerError(ErrorCode.APP_BUSY, `app ${app}'s timers keep changing; retry shortly`);
      }
      await this.deps.publisher.publish({
        marks: done.marks,
        timers: await this.timers.findByIds(done.marks.map((m) => m.timerId)),
        deleted: done.deleted,
        announce: [...done.changed, ...done.deleted],
        change: done.change,
      });
      return { plan, applied: true };
    }
  }

  /** Carries out an apply's steps in `tx`: deletes first (they make room under MAX_TIMERS_PER_APP), then creates, then updates. */
  private async carryOut(
    tx: Transaction,
    steps: readonly PlannedStep[],
    by: ChangeAuthor | undefined,
  ): Promise<{ change: PlanChange; changed: number[]; deleted: number[]; marks: OutboxMark[] }> {
    const planned: PlannedRun[] = [];
    const cancelled: PlanChange['cancelled'] = [];
    const deleted: number[] = [];
    const changed: number[] = [];
    for (const step of steps) {
      if (step.action !== 'delete') continue;
      const id = step.current.id;
      await this.timersIn(tx).delete(id);
      await this.audit(tx, by, 'delete', step.current, step.current, null);
      cancelled.push(...(await this.deps.planner.cancel(id, 0, this.tasksIn(tx))));
      deleted.push(id);
    }
    const creates = steps.flatMap((s) => (s.action === 'create' ? [s] : []));
    const created: number[] = [];
    if (creates.length > 0) {
      try {
        const inserted = await this.insertIn(
          tx,
          creates.map((s) => s.desired),
          by,
        );
        planned.push(...inserted.planned);
        created.push(...inserted.marks.map((m) => m.timerId));
      } catch (err) {
        const index = (err as { details?: { index?: number } }).details?.index;
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
        const change = await this.replaceIn(
          tx,
          step.current,
          step.desired,
          step.diff,
          by,
          this.deps.now(),
          entries,
        );
        planned.push(...change.planned);
        cancelled.push(...change.cancelled);
        changed.push(step.current.id);
      } catch (err) {
        throw atIndex(err, step.index);
      }
    }
    await this.deps.audit.record(entries, tx);
    const marks = await this.deps.publisher.mark(tx, [...created, ...changed, ...deleted]);
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
    const id = current.id;
    const merged = applyPatch(current, diff.patch);
    const problem = callbackProblem(merged.callback);
    if (problem) throw new XtimerError(ErrorCode.VALIDATION_FAILED, problem);
    let status = diff.status ?? current.status;
    // A completed timer defined anew (a later `at`, a wider window) fires again if it now has runs left.
    if (current.status === 'completed' && desired.status === 'active') {
      status = hasRunsLeft({ ...merged, status: 'active' }, now) ? 'active' : 'completed';
    }
    await this.timersIn(tx).update({ ...merged, status });
    const wasActive = current.status === 'active';
    // A definition that disables the timer pauses it (no note, no `until`), as a disable
    // does; one that makes it active again ends its pause, as an enable does.
    let pause: Pick<Timer, 'pausedNote' | 'pausedAt' | 'pausedUntil' | 'failureStreak'> = merged;
    if (wasActive && status === 'inactive') {
      await this.timersIn(tx).setPause(id, { note: null, at: now, until: null });
      pause = { pausedNote: null, pausedAt: now, pausedUntil: null, failureStreak: 0 };
    } else if (!wasActive && status === 'active') {
      await this.timersIn(tx).setPause(id, null);
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
      else await this.deps.audit.record(entry, tx);
    }
    if (wasActive && status !== 'active') {
      // Its runs are stopped once this commits (RunStopper, by the publisher).
      await this.timersIn(tx).startPlan(id, now, {
        plannedUntil: null,
        runsPlanned: current.runsPlanned,
        finalRunAt: null,
      });
      return NO_CHANGE;
    }
    if (!wasActive && status === 'active') {
      if (!hasRunsLeft(updated, now)) {
        throw new XtimerError(
          ErrorCode.TIMER_COMPLETED,
          `timer ${id} has no run left to make (its one-shot time, endAt or maxRuns is behind it)`,
        );
      }
      // As in an enable: the disable's stop first.
      const stopped = await this.deps.stopper.stopIn(tx, current, current.pausedAt ?? now);
      const planned = await this.deps.planner.plan(
        updated,
        now,
        this.tasksIn(tx),
        this.timersIn(tx),
        updated.maxRuns === null ? 0 : stopped.length,
      );
      return { planned, cancelled: stopped };
    }
    if (status !== 'active' || !changesSchedule(diff.patch)) return NO_CHANGE;
    const cancelled = await this.deps.planner.cancel(id, now, this.tasksIn(tx));
    const planned = await this.deps.planner.plan(
      updated,
      now,
      this.tasksIn(tx),
      this.timersIn(tx),
      cancelled.length,
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
      await this.checkPolicy(desired, now);
      return;
    }
    const merged = applyPatch(current, diff.patch);
    checkWindow(merged, now, diff.patch);
    await this.checkPolicy(merged, now, diff.patch);
  }

  /**
   * An apply's checks, each failure naming its timer's index. Timers alike in schedule
   * and target share one policy check (a set is often one cron and one receiver).
   */
  private async checkSteps(steps: readonly PlannedStep[], now: number): Promise<void> {
    const checked = new Set<string>();
    const checks = await Promise.allSettled(
      steps.map(async (step) => {
        if (step.action !== 'create' && step.action !== 'update') return;
        const patch = step.action === 'update' ? step.diff.patch : undefined;
        const timer = step.action === 'update' ? applyPatch(step.current, step.diff.patch) : step.desired;
        checkWindow(timer, now, patch);
        // What checkPolicy looks at: the schedule, the callback target, the notify target.
        const alike = JSON.stringify([
          !patch || changesSchedule(patch) ? [timer.cron, timer.everyMs, timer.timezone] : null,
          !patch || patch.callback?.url !== undefined ? timer.callback.url : null,
          !patch || patch.notify ? (timer.notify?.url ?? null) : null,
        ]);
        if (checked.has(alike)) return;
        checked.add(alike);
        await this.checkPolicy(timer, now, patch);
      }),
    );
    const failed = checks.findIndex((c) => c.status === 'rejected');
    if (failed < 0) return;
    const step = steps[failed] as PlannedStep & { index: number };
    throw atIndex((checks[failed] as PromiseRejectedResult).reason, step.index);
  }

  async get(id: number): Promise<Timer> {
    const timer = await this.timers.findById(id);
    if (!timer) throw timerNotFound(id);
    return timer;
  }

  async list(q: TimerQuery): Promise<Page<Timer>> {
    const items = await this.timers.list({
      ...defined({ app: q.app, status: q.status, labels: q.labels, nameContains: q.nameContains }),
      ...(q.cursor === undefined ? {} : { afterId: decodeCursor(q.cursor) }),
      limit: q.limit + 1,
    });
    return pageOf(items, q.limit, (t) => t.id);
  }

  async countActive(): Promise<number> {
    return this.timers.count({ status: 'active' });
  }

  /** Offset pages with a total, newest first, for the xtimer-compatible API (pageIndex/pageSize). */
  async listNumbered(q: NumberedTimerQuery): Promise<Numbered<Timer>> {
    const filter = { app: q.app, ...defined({ name: q.name, nameContains: q.nameContains }) };
    const [items, total] = await Promise.all([
      this.timers.list({ ...filter, offset: q.offset, limit: q.limit, newestFirst: true }),
      this.timers.count(filter),
    ]);
    return { items, total };
  }

  /** A timer's runs in offset pages with a total, newest first; only those in `statuses`. */
  async listTasksNumbered(q: NumberedTaskQuery): Promise<Numbered<Task>> {
    await this.get(q.timerId);
    const [items, total] = await Promise.all([
      this.tasks.listForTimer(q),
      this.tasks.countForTimer(q.timerId, q.statuses),
    ]);
    return { items, total };
  }

  /** Applies a PATCH; a changed schedule of an active timer re-plans its future runs. */
  async update(id: number, given: TimerPatch, by?: ChangeAuthor, ifMatch?: VersionMatch): Promise<Timer> {
    const existing = await this.get(id);
    const patch =
      given.skipCalendars === undefined
        ? given
        : { ...given, skipDates: await this.skipDatesFor(existing.app, given.skipCalendars) };
    const now = this.deps.now();
    checkWindow(applyPatch(existing, patch), now, patch);
    await this.checkPolicy(applyPatch(existing, patch), now, patch);
    // Under the timer's row lock only, as an enable or disable (setStatus).
    const change = await this.deps.database.transaction(
      async (tx): Promise<{ change: PlanChange; marks: OutboxMark[] }> => {
        const now = this.deps.now();
        const current = await this.lockedTimer(tx, id, ifMatch);
        const merged = applyPatch(current, patch);
        const problem = callbackProblem(merged.callback);
        if (problem) throw new XtimerError(ErrorCode.VALIDATION_FAILED, problem);
        await this.timersIn(tx).update(merged);
        const replans = current.status === 'active' && changesSchedule(patch);
        if (by) {
          const entry = timerChange(by, 'update', current, current, await this.lockedTimer(tx, id));
          // A run with a call behind it (in a call, or backing off to retry) keeps the
          // plan it was called under: the entry says how many the change left alone.
          const inFlight = replans ? await this.tasksIn(tx).countRunning(id) : 0;
          if (inFlight > 0 && entry.after) entry.after.inFlightRunsLeftAlone = inFlight;
          await this.deps.audit.record(entry, tx);
        }
        const marks = await this.deps.publisher.mark(tx, [id]);
        if (!replans) return { change: NO_CHANGE, marks };
        const cancelled = await this.deps.planner.cancel(id, now, this.tasksIn(tx));
        const updated = await this.lockedTimer(tx, id);
        const planned = await this.deps.planner.plan(
          updated,
          now,
          this.tasksIn(tx),
          this.timersIn(tx),
          cancelled.length,
        );
        return { change: { planned, cancelled }, marks };
      },
    );
    return this.afterCommit(id, change.change, change.marks);
  }

  /** Deletes the timer and its runs; pending runs are cancelled. */
  async delete(id: number, by?: ChangeAuthor, ifMatch?: VersionMatch): Promise<void> {
    const existing = await this.get(id);
    const { cancelled, marks } = await this.underAppLock(existing.app, async () => {
      const done = await this.deps.database.transaction(async (tx) => {
        const current = await this.lockedTimer(tx, id, ifMatch);
        await this.timersIn(tx).delete(id);
        await this.audit(tx, by, 'delete', current, current, null);
        const cancelled = await this.deps.planner.cancel(id, 0, this.tasksIn(tx));
        return { cancelled, marks: await this.deps.publisher.mark(tx, [id]) };
      });
      await this.tasks.deleteAllForTimer(id);
      return done;
    });
    await this.deps.publisher.publish({
      marks,
      timers: [],
      deleted: [id],
      announce: [id],
      change: { planned: [], cancelled },
    });
  }

  /** Completes a timer whose schedule has made its last run, and tells every process; false if it was not active. */
  async complete(id: number): Promise<boolean> {
    const done = await this.timers.complete(id);
    if (done) await this.deps.announce(id);
    return done;
  }

  /**
   * Completes the timers whose schedule has ended and that have nothing left in flight
   * (the compensator's sweep, behind the executor that completes a timer at its final run).
   */
  async completeEnded(now: number): Promise<number> {
    let completed = 0;
    for (const id of await this.timers.endedIds(now, ENDED_GRACE_MS))
      if (await this.complete(id)) completed++;
    return completed;
  }

  /** Activates the timer and materialises its runs at once. Idempotent. */
  async enable(id: number, by?: ChangeAuthor): Promise<Timer> {
    return this.setStatus(id, 'active', by);
  }

  /**
   * Deactivates the timer and cancels its runs not yet due, with an optional note and an
   * `until` at which it resumes by itself. Idempotent; on a disabled timer, a note or
   * `until` replaces the pause's.
   */
  async disable(id: number, by?: ChangeAuthor, pause: PauseRequest = {}): Promise<Timer> {
    if (pause.until != null && pause.until <= this.deps.now()) {
      throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'until: must be in the future', [
        { path: 'until', message: 'must be in the future' },
      ]);
    }
    return this.setStatus(id, 'inactive', by, pause);
  }

  /**
   * Enables the disabled timers whose `until` has come (the migrator's pause sweep, every
   * second on every node). Each resume is a conditional change under the timer's row lock,
   * so it happens once in the cluster, also after a restart or Redis losing its data, and
   * is audited as `system`.
   */
  async resumeEnded(now: number): Promise<number> {
    let resumed = 0;
    for (const id of await this.timers.pauseEndedIds(now)) {
      let due = false;
      const timer = await this.setStatus(id, 'active', SYSTEM_AUTHOR, {}, (t, at) => {
        due = t.status === 'inactive' && t.pausedUntil !== null && t.pausedUntil <= at;
        return due;
      }).catch((err: unknown) => {
        if (err instanceof XtimerError && err.code === ErrorCode.TIMER_NOT_FOUND) return null;
        throw err;
      });
      if (due && timer?.status === 'active') resumed++;
    }
    return resumed;
  }

  /**
   * Disables an active timer whose failure streak has reached its autoPause, with the
   * note `auto-paused after N consecutive failures`, audited as `system`; true if this
   * call paused it (one of several executors settling failures at once).
   */
  async autoPause(id: number): Promise<Timer | null> {
    const n = (await this.get(id)).autoPause?.afterConsecutiveFailures;
    if (n === undefined) return null;
    let paused = false;
    const timer = await this.setStatus(id, 'inactive', SYSTEM_AUTHOR, { note: autoPauseNote(n) }, (t) => {
      paused = t.status === 'active' && t.failureStreak >= n;
      return paused;
    });
    return paused ? timer : null;
  }

  /** Disables every active timer of `app` with one note (and `until`); returns how many. */
  async pauseApp(app: string, pause: PauseRequest, by?: ChangeAuthor): Promise<number> {
    let n = 0;
    for (const id of await this.timers.idsOfApp(app, 'active')) {
      if ((await this.disable(id, by, pause)).status === 'inactive') n++;
    }
    return n;
  }

  /** Enables every disabled timer of `app` that has runs left; returns how many. */
  async resumeApp(app: string, by?: ChangeAuthor): Promise<number> {
    let n = 0;
    for (const id of await this.timers.idsOfApp(app, 'inactive')) {
      const timer = await this.enable(id, by).catch((err: unknown) => {
        if (err instanceof XtimerError && err.code === ErrorCode.TIMER_COMPLETED) return null;
        throw err;
      });
      if (timer?.status === 'active') n++;
    }
    return n;
  }

  /** The draft with the dates its calendars list (CALENDAR_NOT_FOUND for one the app lacks). */
  private async withSkipDates(draft: TimerDraft): Promise<TimerDraft> {
    if (draft.skipCalendars.length === 0) return { ...draft, skipDates: {} };
    return { ...draft, skipDates: await this.skipDatesFor(draft.app, draft.skipCalendars) };
  }

  private async skipDatesFor(app: string, names: readonly string[], calendars = this.calendars) {
    const found = await calendars.findMany(app, names);
    return skipDatesFrom(app, names, new Map(found.map((c) => [c.name, c])));
  }

  async getCalendar(app: string, name: string): Promise<Calendar> {
    const calendar = await this.calendars.find(app, name);
    if (!calendar) throw new XtimerError(ErrorCode.NOT_FOUND, `app ${app} has no calendar ${name}`);
    return calendar;
  }

  async listCalendars(app: string): Promise<Calendar[]> {
    return this.calendars.list(app);
  }

  /**
   * Creates or replaces a calendar, and re-plans the future runs of every active timer
   * that names it: runs already planned on a newly listed date are recorded `skipped`
   * (reason `calendar`) and never called, and the rest is planned again without them.
   */
  async putCalendar(
    app: string,
    name: string,
    body: { dates: readonly string[]; description: string | null },
    by?: ChangeAuthor,
  ): Promise<{ calendar: Calendar; created: boolean }> {
    const dates = [...new Set(body.dates)].sort();
    const { created, changes, marks } = await this.underAppLock(app, () =>
      this.deps.database.transaction(async (tx) => {
        const now = this.deps.now();
        const calendars = this.calendars.withDb(tx.db);
        const before = await calendars.find(app, name);
        const created = await calendars.put(app, name, dates, body.description);
        if (by) {
          const after = { name, dates, description: body.description };
          await this.deps.audit.record(
            auditEntry(by, 'calendar_put', { app, timerId: null }, before && calendarFields(before), after),
            tx,
          );
        }
        const changes: Array<[number, PlanChange]> = [];
        for (const timer of await this.timersIn(tx).usingCalendar(app, name)) {
          const skipDates = await this.skipDatesFor(app, timer.skipCalendars, calendars);
          await this.timersIn(tx).update({ ...timer, skipDates });
          const updated = await this.lockedTimer(tx, timer.id);
          if (updated.status !== 'active') {
            changes.push([timer.id, NO_CHANGE]);
            continue;
          }
          const schedule = scheduleOf(updated);
          const skipped = await this.tasksIn(tx).skipPending(timer.id, now, (runAt) => {
            const by = schedule.skippedBy(schedule.nominalOf(runAt)) ?? schedule.skippedBy(runAt);
            return by === null ? null : `skipped: calendar ${by.join(', ')}`;
          });
          const cancelled = await this.deps.planner.cancel(timer.id, now, this.tasksIn(tx));
          const planned = await this.deps.planner.plan(
            updated,
            now,
            this.tasksIn(tx),
            this.timersIn(tx),
            cancelled.length + skipped.length,
          );
          changes.push([timer.id, { planned, cancelled: [...cancelled, ...skipped] }]);
        }
        const marks = await this.deps.publisher.mark(
          tx,
          changes.map(([id]) => id),
        );
        return { created, changes, marks };
      }),
    );
    await this.deps.publisher.publish({
      marks,
      timers: await this.timers.findByIds(changes.map(([id]) => id)),
      announce: changes.map(([id]) => id),
      change: {
        planned: changes.flatMap(([, c]) => c.planned),
        cancelled: changes.flatMap(([, c]) => c.cancelled),
      },
    });
    return { calendar: await this.getCalendar(app, name), created };
  }

  /** Deletes a calendar no timer names (CALENDAR_IN_USE naming them otherwise). */
  async deleteCalendar(app: string, name: string, by?: ChangeAuthor): Promise<void> {
    await this.underAppLock(app, () =>
      this.deps.database.transaction(async (tx) => {
        const users = await this.timersIn(tx).usingCalendar(app, name);
        if (users.length > 0) {
          throw new XtimerError(
            ErrorCode.CALENDAR_IN_USE,
            `calendar ${name} is named by timers ${users.map((t) => `${t.id} (${t.name})`).join(', ')}; remove it from their skipCalendars first`,
            { timers: users.map((t) => ({ id: t.id, name: t.name })) },
          );
        }
        const calendars = this.calendars.withDb(tx.db);
        const before = await calendars.find(app, name);
        if (!before || !(await calendars.delete(app, name))) {
          throw new XtimerError(ErrorCode.NOT_FOUND, `app ${app} has no calendar ${name}`);
        }
        if (by) {
          await this.deps.audit.record(
            auditEntry(by, 'calendar_delete', { app, timerId: null }, calendarFields(before), null),
            tx,
          );
        }
      }),
    );
  }

  /** The next `count` nominal instants with the calendars that skip some (preview ?explain=true). */
  async explain(id: number, count: number, fromMs?: number) {
    const timer = await this.get(id);
    if (timer.status === 'completed') return { timer, runs: [] };
    return {
      timer,
      runs: scheduleOf(timer).explain(fromMs === undefined ? this.deps.now() : fromMs - 1, count),
    };
  }

  /** The timer's next `count` fire times: at or after `fromMs` if given, else after now. */
  async preview(id: number, count: number, fromMs?: number): Promise<{ timer: Timer; runs: number[] }> {
    const timer = await this.get(id);
    // A completed timer fires no more (its window and one-shot time bound the schedule itself).
    if (timer.status === 'completed') return { timer, runs: [] };
    return {
      timer,
      runs: scheduleOf(timer).next(fromMs === undefined ? this.deps.now() : fromMs - 1, count),
    };
  }

  /** The next `count` fire times of a schedule not saved yet (a form's cron as it is typed). */
  previewSchedule(
    fields: Pick<Timer, 'cron' | 'timezone'> & Partial<Pick<Timer, 'everyMs' | 'offsetMs' | 'app' | 'name'>>,
    count: number,
    fromMs?: number,
  ): number[] {
    const schedule = scheduleOf({ ...fields, at: null, startAt: null, endAt: null });
    return schedule.next(fromMs === undefined ? this.deps.now() : fromMs - 1, count);
  }

  /**
   * Run now: a run of the timer at this millisecond (or the next one free), called at
   * once, whatever the timer's status. It is listed and ends like any run.
   */
  async trigger(id: number, by?: ChangeAuthor): Promise<QueuedRunView> {
    const timer = await this.get(id);
    const now = this.deps.now();
    for (let runAt = now; runAt < now + MANUAL_RUN_TRIES; runAt++) {
      const run = { timerId: id, app: timer.app, runAt, version: timer.version };
      const inserted = await this.deps.database.transaction(async (tx) => {
        if (!(await this.tasksIn(tx).insertRun(run, 'manual'))) return false;
        if (by) {
          const where = { app: timer.app, timerId: id };
          await this.deps.audit.record(
            auditEntry(by, 'trigger', where, null, { taskId: taskKey(id, runAt) }),
            tx,
          );
        }
        return true;
      });
      if (!inserted) continue;
      await this.deps.planner.queueNow({ ...run, trigger: 'manual' });
      return { id: taskKey(id, runAt), timerId: id, runAt, status: 'pending', trigger: 'manual' };
    }
    throw new XtimerError(
      ErrorCode.APP_BUSY,
      `timer ${id} has a run in each of the next ${MANUAL_RUN_TRIES} ms`,
    );
  }

  /** Calls a failed or missed run again, as its next attempt, with the same task id. */
  async retryRun(timerId: number, taskId: string, by?: ChangeAuthor): Promise<QueuedRunView> {
    const timer = await this.get(timerId);
    const ref = parseTaskKey(taskId);
    const row = ref?.timerId === timerId ? await this.tasks.find(timerId, ref.runAt) : null;
    if (!ref || !row)
      throw new XtimerError(ErrorCode.TASK_NOT_FOUND, `timer ${timerId} has no run ${taskId}`);
    await this.deps.database.transaction(async (tx) => {
      if (!(await this.tasksIn(tx).reopen(timerId, ref.runAt))) {
        throw new XtimerError(
          ErrorCode.TASK_NOT_RETRYABLE,
          `run ${taskId} is ${row.status}; only a failed or missed run can be retried`,
        );
      }
      if (by) {
        const entry = auditEntry(
          by,
          'retry',
          { app: timer.app, timerId },
          { taskId, status: row.status, attempts: row.attempts },
          { taskId, status: 'pending', attempts: row.attempts },
        );
        await this.deps.audit.record(entry, tx);
      }
    });
    // Its claim record turns into a backoff that ends now: the retry job claims the next attempt.
    await this.deps.claims.reopen({ key: taskId, runAt: ref.runAt }, row.attempts);
    await this.deps.planner.queueNow({
      timerId,
      runAt: ref.runAt,
      version: timer.version,
      afterAttempt: row.attempts,
      trigger: 'retry',
    });
    return { id: taskId, timerId, runAt: ref.runAt, status: 'pending', trigger: 'retry' };
  }

  /** The latest `limit` runs up to now of each timer, newest first (the dashboard's list). */
  async recentRuns(timerIds: readonly number[], limit: number): Promise<Map<number, Task[]>> {
    const beforeMs = this.deps.now() + 1;
    const lists = await Promise.all(
      timerIds.map((timerId) => this.tasks.listForTimer({ timerId, beforeMs, limit })),
    );
    return new Map(timerIds.map((id, i) => [id, lists[i]!]));
  }

  /** The next `count` fire times of an active timer; none for an inactive or completed one. */
  nextFires(timer: Timer, count: number): number[] {
    return timer.status === 'active' ? scheduleOf(timer).next(this.deps.now(), count) : [];
  }

  /**
   * Runs of every timer in one status, newest first, optionally of one app (the
   * dashboard's failed and missed runs); `before` is the last run of the previous page.
   */
  async runsByStatus(q: {
    status: TaskStatus;
    app?: string | undefined;
    before?: { runAt: number; id: number } | undefined;
    limit: number;
  }): Promise<{ items: Task[]; more: boolean }> {
    const items = await this.tasks.listByStatus({ ...q, limit: q.limit + 1 });
    const more = items.length > q.limit;
    if (more) items.length = q.limit;
    return { items, more };
  }

  /** Timers by id (those that still exist). */
  async getMany(ids: readonly number[]): Promise<Timer[]> {
    return this.timers.findByIds([...new Set(ids)]);
  }

  /** History (runs at or before now, newest first) or, with `upcoming`, the pending runs to come, soonest first. */
  async listTasks(timerId: number, q: TaskQuery): Promise<Page<Task>> {
    await this.get(timerId);
    const now = this.deps.now();
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const items = await this.tasks.listForTimer({
      ...defined({ statuses: q.statuses, fromMs: q.fromMs, toMs: q.toMs }),
      ...(q.upcoming
        ? { afterMs: after ?? now, ascending: true, statuses: ['pending'] as const }
        : { beforeMs: after ?? now + 1 }),
      timerId,
      limit: q.limit + 1,
    });
    return pageOf(items, q.limit, (t) => t.runAt);
  }

  /**
   * Sets the status under the app's mutex and the timer's row lock; `onlyIf` (checked
   * under the lock) lets the system's own changes happen only while still due.
   */
  private async setStatus(
    id: number,
    status: 'active' | 'inactive',
    by?: ChangeAuthor,
    pause: PauseRequest = {},
    onlyIf?: (current: Timer, now: number) => boolean,
  ): Promise<Timer> {
    // The timer's row lock orders changes to it; the app's mutex would queue the app's
    // other timers behind this one (thousands of disables during an incident).
    const done = await this.deps.database.transaction(async (tx) => {
      const change = await this.changeStatusIn(tx, id, status, by, pause, onlyIf);
      return change === null ? null : { change, marks: await this.deps.publisher.mark(tx, [id]) };
    });
    if (done === null) return this.get(id);
    return this.afterCommit(id, done.change, done.marks);
  }

  /** setStatus's change in `tx` (the app's mutex held): null when there is none to make. */
  private async changeStatusIn(
    tx: Transaction,
    id: number,
    status: 'active' | 'inactive',
    by: ChangeAuthor | undefined,
    pause: PauseRequest,
    onlyIf?: (current: Timer, now: number) => boolean,
  ): Promise<PlanChange | null> {
    const now = this.deps.now();
    const current = await this.lockedTimer(tx, id);
    if (onlyIf && !onlyIf(current, now)) return null;
    const repausing = pause.note !== undefined || pause.until !== undefined;
    if (current.status === status) {
      if (status !== 'inactive' || !repausing) return null;
      // A disabled timer gets a new note or `until`.
      await this.timersIn(tx).setPause(id, {
        note: pause.note === undefined ? current.pausedNote : pause.note,
        at: current.pausedAt ?? now,
        until: pause.until ?? null,
      });
      if (by) await this.audit(tx, by, 'disable', current, current, await this.lockedTimer(tx, id));
      return NO_CHANGE;
    }
    if (status === 'inactive') {
      // A completed timer stays completed when nothing is left to stop; one whose
      // final run settled before earlier ones (a backlog) still owes those: a disable
      // stops them as it would an active timer's.
      if (current.status === 'completed' && !(await this.owesRuns(tx, id))) return null;
      // One statement on the timer's row, and its runs are stopped once this commits
      // (RunStopper, by the publisher): an incident's thousands of disables stay cheap.
      const paused = { note: pause.note ?? null, at: now, until: pause.until ?? null };
      await this.timersIn(tx).disable(id, paused);
      const after: Timer = {
        ...current,
        status: 'inactive',
        version: current.version + 1,
        plannedFrom: now,
        finalRunAt: null,
        pausedNote: paused.note,
        pausedAt: paused.at,
        pausedUntil: paused.until,
        failureStreak: 0,
      };
      if (by) await this.audit(tx, by, 'disable', current, current, after);
      return NO_CHANGE;
    }
    if (!hasRunsLeft(current, now)) {
      if (by === SYSTEM_AUTHOR) {
        // A pause that ends on a timer with nothing left to run: it stays disabled, no longer due.
        await this.timersIn(tx).setPause(id, {
          note: current.pausedNote,
          at: current.pausedAt ?? now,
          until: null,
        });
        return NO_CHANGE;
      }
      throw new XtimerError(
        ErrorCode.TIMER_COMPLETED,
        `timer ${id} has no run left to make (its one-shot time, endAt or maxRuns is behind it)`,
      );
    }
    // The disable's stop may still be queued: done here first, under the row lock, so the
    // runs of the disabled stretch are never left pending for an active timer.
    const stopped =
      current.status === 'inactive'
        ? await this.deps.stopper.stopIn(tx, current, current.pausedAt ?? now)
        : [];
    await this.timersIn(tx).setStatus(id, status);
    await this.timersIn(tx).setPause(id, null);
    const updated = await this.lockedTimer(tx, id);
    await this.audit(tx, by, 'enable', current, current, updated);
    return {
      planned: await this.deps.planner.plan(updated, now, this.tasksIn(tx), this.timersIn(tx)),
      cancelled: stopped,
    };
  }

  /**
   * Records a change made on someone's behalf (nothing without `by`: the system's own
   * changes, such as completing a timer, are not audited): the timer's changed fields
   * from `before` to `after`.
   */
  private async audit(
    tx: Transaction,
    by: ChangeAuthor | undefined,
    action: AuditAction,
    timer: Pick<Timer, 'id' | 'app'>,
    before: Timer | null,
    after: Timer | null,
  ): Promise<void> {
    if (by) await this.deps.audit.record(timerChange(by, action, timer, before, after), tx);
  }

  /** Whether runs of the timer are still to go (pending, or running: in a call or backing off). */
  private async owesRuns(tx: Transaction, id: number): Promise<boolean> {
    return (await this.tasksIn(tx).countForTimer(id, ['pending', 'running'])) > 0;
  }

  /** The timer, locked for the rest of the transaction; with `ifMatch`, at one of those versions (else VERSION_CONFLICT). */
  private async lockedTimer(tx: Transaction, id: number, ifMatch?: VersionMatch): Promise<Timer> {
    const timer = await this.timersIn(tx).findById(id, { forUpdate: true });
    if (!timer) throw timerNotFound(id);
    if (ifMatch && !matchesVersion(ifMatch, timer.version))
      throw versionConflict(`timer ${id}`, timer.version);
    return timer;
  }

  /**
   * Once a change is committed: the timer's copy, the announcement to every process, its
   * runs in the slices (and those due too soon for the trigger to see there queued).
   */
  private async afterCommit(id: number, change: PlanChange, marks: readonly OutboxMark[]): Promise<Timer> {
    const timer = await this.get(id);
    await this.deps.publisher.publish({ marks, timers: [timer], announce: [id], change });
    return timer;
  }

  /**
   * The limits a timer's definition must keep: runs no closer than MIN_RUN_INTERVAL_MS,
   * and a callback target the SSRF guard allows. On update only what the patch changes.
   */
  private async checkPolicy(timer: TimerDraft, now: number, patch?: TimerPatch): Promise<void> {
    const policy = this.deps.policy;
    if (!policy) return;
    if (policy.minRunIntervalMs > 0 && timer.at === null && (!patch || changesSchedule(patch))) {
      const gap = scheduleOf(timer).shortestGap(now);
      if (gap !== null && gap < policy.minRunIntervalMs) {
        throw new XtimerError(
          ErrorCode.CRON_TOO_FREQUENT,
          `${timer.everyMs === null ? 'cron' : 'every'}: runs ${gap} ms apart; the minimum interval between runs is ${policy.minRunIntervalMs} ms (MIN_RUN_INTERVAL_MS)`,
        );
      }
    }
    if (policy.guard && (!patch || patch.callback?.url !== undefined)) {
      await policy.guard.assertAllowed(timer.callback.url, 'callback.url');
    }
    if (policy.guard && timer.notify && (!patch || patch.notify)) {
      await policy.guard.assertAllowed(timer.notify.url, 'notify.url');
    }
  }

  /** MAX_TIMERS_PER_APP for the apps of new timers, counted under their locks so concurrent creates cannot overshoot. */
  private async checkRoomFor(drafts: readonly TimerDraft[], tx: Transaction): Promise<void> {
    const max = this.deps.policy?.maxTimersPerApp ?? 0;
    if (max <= 0) return;
    const adding = groupBy(drafts, (d) => d.app);
    const has = await this.timersIn(tx).countByApp([...adding.keys()]);
    for (const [app, { length: n }] of adding) {
      const already = has.get(app) ?? 0;
      if (already + n <= max) continue;
      throw new XtimerError(
        ErrorCode.TIMER_LIMIT_REACHED,
        already >= max
          ? `app ${app} has ${max} timers, the most it may have (MAX_TIMERS_PER_APP); delete some first`
          : `app ${app} has ${already} timers: ${n} more would pass MAX_TIMERS_PER_APP (${max})`,
      );
    }
  }

  private timersIn(tx: Transaction): TimerRepository {
    return this.timers.withDb(tx.db);
  }

  private tasksIn(tx: Transaction): TaskRepository {
    return this.tasks.withDb(tx.db, tx.conn);
  }

  private async underAppLock<T>(app: string, fn: () => Promise<T>): Promise<T> {
    return this.underAppLocks([app], APP_LOCK_TTL_MS, fn);
  }

  /** Runs `fn` holding the mutexes of all `apps` (taken together: see RedisLock.withLocks). */
  private async underAppLocks<T>(apps: readonly string[], ttlMs: number, fn: () => Promise<T>): Promise<T> {
    const keys = apps.map((app) => this.deps.keys.appLock(app));
    const result = await this.deps.lock.withLocks(keys, ttlMs, APP_LOCK_WAIT_MS, fn);
    if (!result) {
      throw new XtimerError(
        ErrorCode.APP_BUSY,
        `another change to app ${apps.join(', ')} is in progress; retry shortly`,
      );
    }
    return result.value;
  }
}

/** The dates the calendars `names` of `app` list, from its calendars by name (CALENDAR_NOT_FOUND for one it lacks). */
function skipDatesFrom(app: string, names: readonly string[], calendars: ReadonlyMap<string, Calendar>) {
  const missing = names.filter((n) => !calendars.has(n));
  if (missing.length > 0) {
    throw new XtimerError(
      ErrorCode.CALENDAR_NOT_FOUND,
      `skipCalendars: app ${app} has no calendar ${missing.join(', ')}`,
      [{ path: 'skipCalendars', message: `no calendar ${missing.join(', ')}` }],
    );
  }
  return skipDatesOf([...calendars.values()].filter((c) => names.includes(c.name)));
}

/** Do two reads of an app's timers hold the same timers at the same versions? */
function sameVersions(a: readonly Timer[], b: readonly Timer[]): boolean {
  if (a.length !== b.length) return false;
  const versions = new Map(a.map((t) => [t.id, t.version]));
  return b.every((t) => versions.get(t.id) === t.version);
}

/** A batch item's error, naming the item: `timers.<index>: …`, and the index in its details. */
function atIndex(err: unknown, index: number): unknown {
  if (err instanceof CronSyntaxError)
    return atIndex(new XtimerError(ErrorCode.INVALID_CRON, err.message), index);
  if (err instanceof ScheduleTooCostlyError)
    return atIndex(new XtimerError(ErrorCode.CRON_TOO_COSTLY, err.message), index);
  if (!(err instanceof XtimerError)) return err;
  return new XtimerError(err.code, `timers.${index}: ${err.message}`, [
    { path: `timers.${index}`, message: err.message, index },
  ]);
}

function applyPatch<T extends TimerDraft>(t: T, p: TimerPatch): T {
  const { callback, retry, ...rest } = p;
  const merged = {
    ...t,
    ...defined(rest),
    callback: { ...t.callback, ...defined(callback) },
    retry: { ...t.retry, ...defined(retry) },
  };
  // A timer has a cron, an interval or an `at`: setting one clears the others. A cron set
  // natively replaces the one a Go client wrote; the compatible routes then show the native one.
  const notInterval = { everyMs: null, offsetMs: 0 };
  if (p.at !== undefined)
    return { ...merged, ...notInterval, jitterMs: p.jitterMs ?? 0, cron: null, compatCron: null };
  if (p.cron !== undefined) return { ...merged, ...notInterval, at: null, compatCron: p.compatCron ?? null };
  if (p.everyMs !== undefined) return { ...merged, cron: null, at: null, compatCron: null };
  return merged;
}

/** Does the timer still have a run to make from `now` on (its one-shot time, window and cap)? */
function hasRunsLeft(timer: Timer, now: number): boolean {
  if (timer.maxRuns !== null && timer.runsPlanned >= timer.maxRuns) return false;
  return scheduleOf(timer).next(now, 1).length > 0;
}

/** A one-shot's `at` and the window's end lie ahead, and the window is not empty. */
function checkWindow(t: TimerDraft, now: number, patch?: TimerPatch): void {
  const problem = (field: string, message: string) =>
    new XtimerError(ErrorCode.VALIDATION_FAILED, `${field}: ${message}`, [{ path: field, message }]);
  if ((!patch || patch.at !== undefined) && t.at !== null && t.at <= now) {
    throw problem('at', 'must be in the future');
  }
  if ((!patch || patch.endAt !== undefined) && t.endAt !== null && t.endAt <= now) {
    throw problem('endAt', 'must be in the future');
  }
  if (t.startAt !== null && t.endAt !== null && t.endAt <= t.startAt) {
    throw problem('endAt', 'must be after startAt');
  }
  if (t.everyMs === null && t.offsetMs !== 0)
    throw problem('offset', 'is only for an interval timer (every)');
  if (t.everyMs !== null && t.offsetMs >= t.everyMs) {
    throw problem('offset', `must be shorter than every (${t.everyMs} ms)`);
  }
  if (t.jitterMs > 0 && (!patch || changesSchedule(patch))) {
    if (t.at !== null) throw problem('jitterMs', 'is for cron and interval timers, not a one-shot (at)');
    // A shift below the shortest gap keeps the runs in order, each with one nominal instant.
    const gap = scheduleOf(t).shortestGap(now);
    if (gap !== null && t.jitterMs > gap) {
      throw problem('jitterMs', `must be at most the schedule's shortest gap between runs (${gap} ms)`);
    }
  }
}

/** A calendar as its audit entries show it. */
function calendarFields(calendar: Calendar) {
  return { name: calendar.name, dates: calendar.dates, description: calendar.description };
}
