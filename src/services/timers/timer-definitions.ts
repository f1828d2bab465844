import { type ChangeAuthor, timerChange } from '../../domain/audit.js';
import { replanFrom } from '../../domain/plan/replan-from.js';
import { resolvedCronOf } from '../../domain/schedule/hashed-cron.js';
import {
  callbackProblem,
  type Labels,
  movesRuns,
  type Timer,
  type TimerDraft,
  type TimerPatch,
  type TimerStatus,
} from '../../domain/timer.js';
import type { VersionMatch } from '../../domain/version-match.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import { groupBy } from '../../lib/group-by.js';
import { GroupCommit, GroupCommitsByKey } from '../../lib/group-commit.js';
import type { Transaction } from '../../storage/db/client.js';
import type { OutboxMark } from '../../storage/db/plan-outbox-repository.js';
import type { PlannedRun } from '../../storage/db/tasks/task-repository.js';
import { NO_CHANGE, type PlanChange } from '../planning/run-planner.js';
import { type AccessScope, SET_NOTIFY } from './access.js';
import { decodeCursor, type Numbered, type Page, pageOf } from './page.js';
import { applyPatch, atIndex, checkRoom, checkWindow, defined } from './timer-rules.js';
import { APP_LOCK_TTL_MS, type TimerStore } from './timer-store.js';

export interface TimerQuery {
  app?: string | undefined;
  status?: TimerStatus | undefined;
  /** Timers carrying every one of these labels. */
  labels?: Labels | undefined;
  /** Names holding this text, case-insensitively. */
  nameContains?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface NumberedTimerQuery {
  app: string;
  name?: string | undefined;
  nameContains?: string | undefined;
  offset: number;
  limit: number;
}

/** A create waiting for its batch. */
interface PendingCreate {
  draft: TimerDraft;
  by: ChangeAuthor | undefined;
}

/** Most creates of an app stored together, and how many such batches may be under way at once. */
const CREATE_BATCH = 100;
const CREATES_IN_FLIGHT = 2;

/**
 * Timer definitions: create (one, or a batch all or nothing), read, list, PATCH and
 * delete. Creates and deletes take the app's mutex (they change its set of timers);
 * a PATCH takes only the timer's row lock.
 */
export class TimerDefinitions {
  /**
   * Concurrent creates of each app stored together (one lock round, transaction and INSERT
   * each batch). Per app: a batch waiting for one app's mutex (a long apply of its own) must
   * hold no other app's creates, nor their mutexes.
   */
  private readonly creates = new GroupCommitsByKey<PendingCreate, Timer>(
    () => new GroupCommit((items) => this.storeEach(items), CREATE_BATCH, CREATES_IN_FLIGHT),
  );

  constructor(private readonly store: TimerStore) {}

  async create(scope: AccessScope, given: TimerDraft): Promise<Timer> {
    scope.useApp(given.app);
    if (given.notify !== null) scope.notRetired(SET_NOTIFY);
    await scope.spend();
    const draft = await this.store.withSkipDates(given);
    const now = this.store.deps.now();
    checkWindow(draft, now);
    await this.store.checkPolicy(draft, now);
    return this.creates.add(draft.app, { draft, by: scope.author });
  }

  /**
   * Creates timers all or nothing (POST /timers/batch): if one may not be created, the
   * call fails naming its index (`timers.<i>`) and none is stored. One transaction, one
   * multi-row INSERT of the timers and one of their near-term runs. A batch spends one
   * call of the rate limit, however many timers it holds.
   */
  async createMany(scope: AccessScope, given: readonly TimerDraft[]): Promise<Timer[]> {
    for (const app of new Set(given.map((d) => d.app))) scope.useApp(app);
    if (given.some((d) => d.notify !== null)) scope.notRetired(SET_NOTIFY);
    await scope.spend();
    const drafts = await Promise.all(
      given.map((d, i) =>
        this.store.withSkipDates(d).catch((err: unknown) => Promise.reject(atIndex(err, i))),
      ),
    );
    const now = this.store.deps.now();
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
        const alike = `${resolvedCronOf(draft)}\0${draft.everyMs}\0${draft.timezone}\0${draft.callback.url}\0${draft.notify?.url}`;
        if (checked.has(alike)) return;
        checked.add(alike);
        await this.store.checkPolicy(draft, now);
      }),
    );
    const failed = checks.findIndex((c) => c.status === 'rejected');
    if (failed >= 0) throw atIndex((checks[failed] as PromiseRejectedResult).reason, failed);
    try {
      return await this.storeAll(drafts, scope.author);
    } catch (err) {
      // A name taken in MySQL: the repository says which timer's.
      const index = (err as XtimerError).details?.[0]?.index;
      throw index === undefined
        ? err
        : atIndex(new XtimerError((err as XtimerError).code, (err as Error).message), index);
    }
  }

  async get(scope: AccessScope, id: number): Promise<Timer> {
    return this.store.owned(scope, id);
  }

  /** An app key lists its own timers, whether or not the query names its app. */
  async list(scope: AccessScope, asked: TimerQuery): Promise<Page<Timer>> {
    let q = asked;
    if (scope.actor.kind === 'app') {
      if (q.app !== undefined) scope.useApp(q.app);
      q = { ...q, app: scope.actor.app };
    }
    const items = await this.store.timers.list({
      ...defined({ app: q.app, status: q.status, labels: q.labels, nameContains: q.nameContains }),
      ...(q.cursor === undefined ? {} : { afterId: decodeCursor(q.cursor) }),
      limit: q.limit + 1,
    });
    return pageOf(items, q.limit, (t) => t.id);
  }

  /** Offset pages with a total, newest first, for the xtimer-compatible API (pageIndex/pageSize). */
  async listNumbered(scope: AccessScope, q: NumberedTimerQuery): Promise<Numbered<Timer>> {
    scope.useApp(q.app);
    const filter = { app: q.app, ...defined({ name: q.name, nameContains: q.nameContains }) };
    const [items, total] = await Promise.all([
      this.store.timers.list({ ...filter, offset: q.offset, limit: q.limit, newestFirst: true }),
      this.store.timers.count(filter),
    ]);
    return { items, total };
  }

  /** Applies a PATCH; a changed schedule of an active timer re-plans its future runs. */
  async update(scope: AccessScope, id: number, given: TimerPatch, ifMatch?: VersionMatch): Promise<Timer> {
    const existing = await this.store.owned(scope, id);
    if (given.notify !== undefined) scope.notRetired(SET_NOTIFY);
    await scope.spend();
    const by = scope.author;
    const names = given.skipCalendars;
    const patch =
      names === undefined
        ? given
        : { ...given, skipDates: await this.store.skipDatesFor(existing.app, names) };
    const now = this.store.deps.now();
    checkWindow(applyPatch(existing, patch), now, patch);
    await this.store.checkPolicy(applyPatch(existing, patch), now, patch);
    const { deps } = this.store;
    // Under the timer's row lock only, as an enable or disable (TimerLifecycle).
    const change = await deps.database.transaction(
      async (tx): Promise<{ change: PlanChange; marks: OutboxMark[] }> => {
        const now = deps.now();
        // The calendars' dates again, locked before the timer as a calendar PUT locks them:
        // one committed since the read above is not lost, and one to come waits for this.
        const fresh =
          names === undefined
            ? patch
            : {
                ...patch,
                skipDates: await this.store.skipDatesFor(
                  existing.app,
                  names,
                  this.store.calendars.withDb(tx.db),
                  'share',
                ),
              };
        const current = await this.store.lockedTimer(tx, id, ifMatch);
        const merged = applyPatch(current, fresh);
        const problem = callbackProblem(merged.callback);
        if (problem) throw new XtimerError(ErrorCode.VALIDATION_FAILED, problem);
        await this.store.timersIn(tx).update(merged);
        const replans = current.status === 'active' && movesRuns(current, patch);
        if (by) {
          const entry = timerChange(by, 'update', current, current, await this.store.lockedTimer(tx, id));
          // A run with a call behind it (in a call, or backing off to retry) keeps the
          // plan it was called under: the entry says how many the change left alone.
          const inFlight = replans ? await this.store.tasksIn(tx).countRunning(id) : 0;
          if (inFlight > 0 && entry.after) entry.after.inFlightRunsLeftAlone = inFlight;
          await deps.audit.record(entry, tx);
        }
        const marks = await deps.publisher.mark(tx, [id]);
        if (!replans) return { change: NO_CHANGE, marks };
        const cancelled = await deps.stopper.cancelFrom(tx, id, now);
        const updated = await this.store.lockedTimer(tx, id);
        const planned = await deps.planner.plan(
          updated,
          replanFrom(current, updated, now),
          this.store.tasksIn(tx),
          this.store.timersIn(tx),
          cancelled.length,
          now,
        );
        return { change: { planned, cancelled }, marks };
      },
    );
    return this.store.afterCommit(id, change.change, change.marks);
  }

  /** Deletes the timer and its runs; pending runs are cancelled. */
  async delete(scope: AccessScope, id: number, ifMatch?: VersionMatch): Promise<void> {
    const existing = await this.store.owned(scope, id);
    await scope.spend();
    const { deps } = this.store;
    const { cancelled, marks } = await this.store.underAppLock(existing.app, async () => {
      const done = await deps.database.transaction(async (tx) => {
        const current = await this.store.lockedTimer(tx, id, ifMatch);
        await this.store.timersIn(tx).delete(id);
        await this.store.audit(tx, scope.author, 'delete', current, current, null);
        const cancelled = await deps.planner.cancel(id, 0, this.store.tasksIn(tx));
        return { cancelled, marks: await deps.publisher.mark(tx, [id]) };
      });
      await this.store.tasks.deleteAllForTimer(id);
      return done;
    });
    await deps.publisher.publish({
      marks,
      timers: [],
      deleted: [id],
      announce: [id],
      change: { planned: [], cancelled },
    });
  }

  /** Timers by id (those that still exist), for the dashboard's runs page. */
  async getMany(ids: readonly number[]): Promise<Timer[]> {
    return this.store.timers.findByIds([...new Set(ids)]);
  }

  async countActive(): Promise<number> {
    return this.store.timers.count({ status: 'active' });
  }

  /**
   * Inserts new timers in `tx` (their apps' mutexes held), with the first plan of the
   * active ones (their near term, changeHorizon) and an audit entry each. Apply and
   * upsert create through it too.
   */
  async insertIn(
    tx: Transaction,
    given: readonly TimerDraft[],
    by: ChangeAuthor | undefined | ReadonlyArray<ChangeAuthor | undefined>,
  ): Promise<{ created: Timer[]; planned: PlannedRun[]; marks: OutboxMark[] }> {
    const { deps } = this.store;
    // Their calendars' dates as they are now: a calendar PUT may have committed since they were read.
    const drafts = await this.store.withDatesIn(tx, given);
    // One author for all (a batch), or one per draft (creates stored together).
    const authorOf = (i: number) => (Array.isArray(by) ? by[i] : (by as ChangeAuthor | undefined));
    // Read once the locks are held: the plans start when the change does, not when it was asked for.
    const now = deps.now();
    await this.checkRoomFor(drafts, tx);
    const rows = drafts.map((draft) =>
      draft.status === 'active'
        ? { draft, plannedFrom: now, plan: deps.planner.firstPlan(draft, now) }
        : {
            draft,
            plannedFrom: null,
            plan: { runAts: [], plannedUntil: null, runsPlanned: 0, finalRunAt: null },
          },
    );
    const created = await this.store.timersIn(tx).insertMany(rows, new Date());
    // A jittered run's instant depends on the timer's id: plan those once it has one.
    for (const [i, timer] of created.entries()) {
      if (timer.jitterMs === 0 || timer.status !== 'active') continue;
      const plan = deps.planner.firstPlan(timer, now);
      rows[i]!.plan = plan;
      await this.store.timersIn(tx).startPlan(timer.id, now, plan);
    }
    const entries = created.flatMap((t, i) => {
      const author = authorOf(i);
      return author ? [timerChange(author, 'create', t, null, t)] : [];
    });
    await deps.audit.record(entries, tx);
    const planned = created.flatMap((timer, i) => deps.planner.runsOf(timer, rows[i]!.plan));
    await this.store.tasksIn(tx).insertRuns(planned);
    const marks = await deps.publisher.mark(
      tx,
      created.filter((t) => t.status === 'active').map((t) => t.id),
    );
    return { created, planned, marks };
  }

  /**
   * Stores unrelated creates together; if that fails for one of them (a name taken, an
   * app's limit reached), each alone, so each gets its own answer.
   */
  private async storeEach(items: readonly PendingCreate[]): Promise<Array<PromiseSettledResult<Timer>>> {
    const drafts = items.map((i) => i.draft);
    try {
      const stored = await this.storeAll(
        drafts,
        items.map((i) => i.by),
      );
      return stored.map((value) => ({ status: 'fulfilled', value }));
    } catch (err) {
      const itsOwn = (err as XtimerError).details?.[0]?.index !== undefined;
      const limit = err instanceof XtimerError && err.code === ErrorCode.TIMER_LIMIT_REACHED;
      if (drafts.length === 1 || !(itsOwn || limit)) throw err;
      const alone: Array<PromiseSettledResult<Timer>> = [];
      for (const { draft, by } of items) {
        try {
          alone.push({ status: 'fulfilled', value: (await this.storeAll([draft], by))[0]! });
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
  private async storeAll(
    drafts: readonly TimerDraft[],
    by: ChangeAuthor | undefined | ReadonlyArray<ChangeAuthor | undefined>,
  ): Promise<Timer[]> {
    const apps = [...new Set(drafts.map((d) => d.app))];
    // A big batch holds its mutexes longer than a single create.
    const lockMs = Math.max(APP_LOCK_TTL_MS, drafts.length * 10);
    const { created, planned, marks } = await this.store.underAppLocks(apps, lockMs, () =>
      this.store.deps.database.transaction((tx) => this.insertIn(tx, drafts, by)),
    );
    // Nothing to announce: no process can have cached a timer that did not exist.
    await this.store.deps.publisher.publish({
      marks,
      timers: created.filter((t) => t.status === 'active'),
      announce: [],
      change: { planned, cancelled: [] },
    });
    return created;
  }

  /** MAX_TIMERS_PER_APP for the apps of new timers, counted under their locks so concurrent creates cannot overshoot. */
  private async checkRoomFor(drafts: readonly TimerDraft[], tx: Transaction): Promise<void> {
    const max = this.store.deps.policy?.maxTimersPerApp ?? 0;
    if (max <= 0) return;
    const adding = groupBy(drafts, (d) => d.app);
    const has = await this.store.timersIn(tx).countByApp([...adding.keys()]);
    for (const [app, { length: n }] of adding) checkRoom(app, has.get(app) ?? 0, n, max);
  }
}
