import type { TargetGuard } from '../../callback/target-guard.js';
import { type AuditAction, type ChangeAuthor, timerChange } from '../../domain/audit.js';
import type { Calendar, SkipDates } from '../../domain/schedule/calendar.js';
import { scheduleOf } from '../../domain/schedule/timer-schedule.js';
import { changesSchedule, type Timer, type TimerDraft, type TimerPatch } from '../../domain/timer.js';
import { matchesVersion, type VersionMatch } from '../../domain/version-match.js';
import { ErrorCode, timerNotFound, versionConflict, XtimerError } from '../../errors.js';
import { CalendarRepository } from '../../storage/db/calendar-repository.js';
import type { Database, Transaction } from '../../storage/db/client.js';
import type { OutboxMark } from '../../storage/db/plan-outbox-repository.js';
import { TaskRepository } from '../../storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../storage/db/timer-repository.js';
import type { Keys } from '../../storage/redis/keys.js';
import type { RateLimiter } from '../../storage/redis/rate-limiter.js';
import type { RedisLock } from '../../storage/redis/redis-lock.js';
import type { RunClaims } from '../../storage/redis/runs/run-claims.js';
import type { AuditService } from '../apps/audit-service.js';
import type { PlanPublisher } from '../planning/plan-publisher.js';
import type { PlanChange, RunPlanner } from '../planning/run-planner.js';
import type { RunStopper } from '../planning/run-stopper.js';
import { type AccessScope, assertCanUseApp } from './access.js';
import { skipDatesFrom } from './timer-rules.js';

/** The per-app mutex: 3 s, waited for up to as long. */
export const APP_LOCK_TTL_MS = 3000;
/** How long a change waits for the app's mutex before answering APP_BUSY (a busy app queues its changes). */
const APP_LOCK_WAIT_MS = 10_000;

/** What the timer use cases are built over. */
export interface TimerDeps {
  database: Database;
  lock: RedisLock;
  keys: Keys;
  planner: RunPlanner;
  /** Takes each committed change to Redis (copies, announcements, slices), or leaves it to the repair. */
  publisher: PlanPublisher;
  /**
   * Stops a disabled timer's runs in an enable's transaction, before it plans again, and
   * cancels a re-planned timer's runs, leaving those already claimed to their holders.
   */
  stopper: Pick<RunStopper, 'stopIn' | 'cancelFrom'>;
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

/**
 * What the timer concepts share: the repositories, the app's mutex, the timer's row lock,
 * the policy checks and the publication after a commit. One instance, handed to each
 * concept, so that none of them needs another's internals.
 */
export class TimerStore {
  readonly timers: TimerRepository;
  readonly tasks: TaskRepository;
  readonly calendars: CalendarRepository;

  constructor(readonly deps: TimerDeps) {
    this.timers = new TimerRepository(deps.database.db);
    this.tasks = new TaskRepository(deps.database.db, deps.database.pool);
    this.calendars = new CalendarRepository(deps.database.db);
  }

  timersIn(tx: Transaction): TimerRepository {
    return this.timers.withDb(tx.db);
  }

  tasksIn(tx: Transaction): TaskRepository {
    return this.tasks.withDb(tx.db, tx.conn);
  }

  async get(id: number): Promise<Timer> {
    const timer = await this.timers.findById(id);
    if (!timer) throw timerNotFound(id);
    return timer;
  }

  /** The timer, if the scope's actor may use it (404 if it does not exist, 403 if it is another app's). */
  async owned(scope: AccessScope, id: number): Promise<Timer> {
    const timer = await this.get(id);
    assertCanUseApp(scope.actor, timer.app);
    return timer;
  }

  /** The timer, locked for the rest of the transaction; with `ifMatch`, at one of those versions (else VERSION_CONFLICT). */
  async lockedTimer(tx: Transaction, id: number, ifMatch?: VersionMatch): Promise<Timer> {
    const timer = await this.timersIn(tx).findById(id, { forUpdate: true });
    if (!timer) throw timerNotFound(id);
    if (ifMatch && !matchesVersion(ifMatch, timer.version))
      throw versionConflict(`timer ${id}`, timer.version);
    return timer;
  }

  /**
   * Records a change made on someone's behalf (nothing without `by`: the system's own
   * changes, such as completing a timer, are not audited): the timer's changed fields
   * from `before` to `after`.
   */
  async audit(
    tx: Transaction,
    by: ChangeAuthor | undefined,
    action: AuditAction,
    timer: Pick<Timer, 'id' | 'app'>,
    before: Timer | null,
    after: Timer | null,
  ): Promise<void> {
    if (by) await this.deps.audit.record(timerChange(by, action, timer, before, after), tx);
  }

  /**
   * Once a change is committed: the timer's copy, the announcement to every process, its
   * runs in the slices (and those due too soon for the trigger to see there queued).
   */
  async afterCommit(id: number, change: PlanChange, marks: readonly OutboxMark[]): Promise<Timer> {
    const timer = await this.get(id);
    await this.deps.publisher.publish({ marks, timers: [timer], announce: [id], change });
    return timer;
  }

  /**
   * The limits a timer's definition must keep: runs no closer than MIN_RUN_INTERVAL_MS,
   * and a callback target the SSRF guard allows. On update only what the patch changes.
   */
  async checkPolicy(timer: TimerDraft, now: number, patch?: TimerPatch): Promise<void> {
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

  /** The draft with the dates its calendars list (CALENDAR_NOT_FOUND for one the app lacks). */
  async withSkipDates(draft: TimerDraft): Promise<TimerDraft> {
    if (draft.skipCalendars.length === 0) return { ...draft, skipDates: {} };
    return { ...draft, skipDates: await this.skipDatesFor(draft.app, draft.skipCalendars) };
  }

  /**
   * The drafts with their calendars' dates read again in `tx`, the calendars locked: dates
   * read before may predate a calendar PUT, which this read waits for (or which waits for
   * this transaction). Drafts naming the same calendars share their dates; the error of
   * one names its index in its details.
   */
  async withDatesIn(tx: Transaction, drafts: readonly TimerDraft[]): Promise<TimerDraft[]> {
    const byApp = await this.calendarsIn(tx, drafts);
    const shared = new Map<string, SkipDates>();
    return drafts.map((d, i) => {
      if (d.skipCalendars.length === 0) return d;
      const key = `${d.app}\0${d.skipCalendars.join('\0')}`;
      let skipDates = shared.get(key);
      if (skipDates === undefined) {
        try {
          skipDates = skipDatesFrom(d.app, d.skipCalendars, byApp.get(d.app) ?? new Map());
        } catch (err) {
          const e = err as XtimerError;
          throw new XtimerError(e.code, e.message, [{ ...e.details[0]!, index: i }]);
        }
        shared.set(key, skipDates);
      }
      return { ...d, skipDates };
    });
  }

  /**
   * Are the calendars the drafts name in `tx` (locked) still as `seen` had them? An
   * upsert or apply that planned by what it read before the app's mutex plans again if not.
   */
  async calendarsStill(
    tx: Transaction,
    drafts: readonly TimerDraft[],
    seen: ReadonlyMap<string, Calendar>,
  ): Promise<boolean> {
    const now = await this.calendarsIn(tx, drafts);
    for (const [app, names] of namedBy(drafts)) {
      for (const name of names) {
        const was = seen.get(name);
        const is = now.get(app)?.get(name);
        if (was === undefined || is === undefined || was.dates.join() !== is.dates.join()) return false;
      }
    }
    return true;
  }

  /** The calendars the drafts name, read in `tx` with their rows share-locked, app by app in order. */
  private async calendarsIn(
    tx: Transaction,
    drafts: readonly TimerDraft[],
  ): Promise<Map<string, Map<string, Calendar>>> {
    const calendars = this.calendars.withDb(tx.db);
    const byApp = new Map<string, Map<string, Calendar>>();
    for (const [app, names] of namedBy(drafts)) {
      const found = await calendars.findMany(app, [...names], 'share');
      byApp.set(app, new Map(found.map((c) => [c.name, c])));
    }
    return byApp;
  }

  /** `lock`: the calendars' rows locked for the transaction of `calendars` (CalendarRepository.findMany). */
  async skipDatesFor(
    app: string,
    names: readonly string[],
    calendars = this.calendars,
    lock?: 'share' | 'update',
  ) {
    const found = await calendars.findMany(app, names, lock);
    return skipDatesFrom(app, names, new Map(found.map((c) => [c.name, c])));
  }

  async underAppLock<T>(app: string, fn: () => Promise<T>): Promise<T> {
    return this.underAppLocks([app], APP_LOCK_TTL_MS, fn);
  }

  /** Runs `fn` holding the mutexes of all `apps` (taken together: see RedisLock.withLocks). */
  async underAppLocks<T>(apps: readonly string[], ttlMs: number, fn: () => Promise<T>): Promise<T> {
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

/** Each app's calendars that the drafts name, the apps in order (the order their rows are locked in). */
function namedBy(drafts: readonly TimerDraft[]): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>();
  for (const d of [...drafts].sort((a, b) => a.app.localeCompare(b.app))) {
    if (d.skipCalendars.length === 0) continue;
    const names = named.get(d.app) ?? new Set<string>();
    for (const name of d.skipCalendars) names.add(name);
    named.set(d.app, names);
  }
  return named;
}
