import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { SkipDates } from '../../domain/schedule/calendar.js';
import {
  type HttpMethod,
  type Labels,
  type MisfirePolicy,
  type OverlapPolicy,
  parseNotify,
  type Timer,
  type TimerDraft,
  type TimerStatus,
} from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import type { Db } from './client.js';
import { multiRowInsert } from './multi-row-insert.js';
import { type TimerRow, timers } from './schema.js';

export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === 'ER_DUP_ENTRY' || e?.cause?.code === 'ER_DUP_ENTRY';
}

function toTimer(row: TimerRow): Timer {
  return {
    id: row.id,
    app: row.app,
    name: row.name,
    cron: row.cron,
    at: ms(row.at),
    everyMs: row.everyMs,
    offsetMs: row.offsetMs,
    jitterMs: row.jitterMs,
    compatCron: row.compatCron,
    timezone: row.timezone,
    callback: {
      url: row.callbackUrl,
      method: row.callbackMethod as HttpMethod,
      headers: JSON.parse(row.callbackHeaders) as Record<string, string>,
      body: row.callbackBody,
      timeoutMs: row.callbackTimeoutMs,
    },
    retry: { maxAttempts: row.retryMaxAttempts, backoffMs: row.retryBackoffMs },
    misfirePolicy: row.misfirePolicy as MisfirePolicy,
    misfireThresholdMs: row.misfireThresholdMs,
    startAt: ms(row.startAt),
    endAt: ms(row.endAt),
    maxRuns: row.maxRuns,
    overlapPolicy: row.overlapPolicy as OverlapPolicy,
    notify: parseNotify(row.notify),
    labels: row.labels === null ? {} : (JSON.parse(row.labels) as Labels),
    description: row.description,
    status: row.status as TimerStatus,
    pausedNote: row.pausedNote,
    pausedAt: ms(row.pausedAt),
    pausedUntil: ms(row.pausedUntil),
    autoPause: row.autoPauseAfter === null ? null : { afterConsecutiveFailures: row.autoPauseAfter },
    failureStreak: row.failureStreak,
    skipCalendars: row.skipCalendars === null ? [] : (JSON.parse(row.skipCalendars) as string[]),
    skipDates: row.skipDates === null ? {} : (JSON.parse(row.skipDates) as SkipDates),
    version: row.version,
    plannedFrom: ms(row.plannedFrom),
    runsPlanned: row.runsPlanned,
    finalRunAt: ms(row.finalRunAt),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toColumns(t: TimerDraft) {
  return {
    app: t.app,
    name: t.name,
    cron: t.cron,
    at: date(t.at),
    everyMs: t.everyMs,
    offsetMs: t.offsetMs,
    jitterMs: t.jitterMs,
    compatCron: t.compatCron ?? null,
    timezone: t.timezone,
    callbackUrl: t.callback.url,
    callbackMethod: t.callback.method,
    callbackHeaders: JSON.stringify(t.callback.headers),
    callbackBody: t.callback.body,
    callbackTimeoutMs: t.callback.timeoutMs,
    retryMaxAttempts: t.retry.maxAttempts,
    retryBackoffMs: t.retry.backoffMs,
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: t.misfireThresholdMs,
    startAt: date(t.startAt),
    endAt: date(t.endAt),
    maxRuns: t.maxRuns,
    overlapPolicy: t.overlapPolicy,
    notify: t.notify === null ? null : JSON.stringify(t.notify),
    labels: Object.keys(t.labels).length === 0 ? null : JSON.stringify(t.labels),
    description: t.description,
    status: t.status,
    autoPauseAfter: t.autoPause?.afterConsecutiveFailures ?? null,
    skipCalendars: t.skipCalendars.length === 0 ? null : JSON.stringify(t.skipCalendars),
    skipDates: Object.keys(t.skipDates).length === 0 ? null : JSON.stringify(t.skipDates),
  };
}

/** Where a timer's planning stands (plan-window.ts). */
export interface PlanRecord {
  plannedUntil: number | null;
  runsPlanned: number;
  finalRunAt: number | null;
}

function planColumns(p: PlanRecord) {
  return { plannedUntil: date(p.plannedUntil), runsPlanned: p.runsPlanned, finalRunAt: date(p.finalRunAt) };
}

/** A timer to store with its first plan (a create). */
export interface NewTimer {
  draft: TimerDraft;
  /** When its plan began (null: inactive, none). */
  plannedFrom: number | null;
  plan: PlanRecord;
}

/** A value of a timer column as an SQL literal (strings escaped, times as UTC DATETIME(3)). */
/** Ids one statement names at most. */
const ID_CHUNK = 5_000;

const ms = (d: Date | null): number | null => (d === null ? null : d.getTime());
const date = (v: number | null): Date | null => (v === null ? null : new Date(v));

/** A timer's identity within its app, as one map key. */
const nameKey = (t: Pick<Timer, 'app' | 'name'>) => `${t.app}\0${t.name}`;

const nameTaken = (t: Pick<Timer, 'app' | 'name'>) =>
  new XtimerError(
    ErrorCode.TIMER_NAME_TAKEN,
    `app ${t.app} already has a timer named ${JSON.stringify(t.name)}`,
  );

export interface TimerListQuery {
  app?: string;
  status?: TimerStatus;
  /** Exactly this name. */
  name?: string;
  /** Names holding this text, case-insensitively (the Go xTimer's fuzzyName). */
  nameContains?: string;
  /** Timers carrying every one of these labels. */
  labels?: Labels;
  afterId?: number;
  limit: number;
  offset?: number;
  /** Highest id first (the Go xTimer's order); lowest first by default. */
  newestFirst?: boolean;
}

/** `text` as a LIKE pattern matching itself literally, with `!` as the escape character. */
function likeLiteral(text: string): string {
  return text.replace(/[!%_]/g, '!$&');
}

function whereOf(q: Omit<TimerListQuery, 'limit'>) {
  return and(
    q.app === undefined ? undefined : eq(timers.app, q.app),
    q.status === undefined ? undefined : eq(timers.status, q.status),
    q.name === undefined ? undefined : eq(timers.name, q.name),
    // Names compare exactly elsewhere; the search is case-insensitive, as in the original's utf8_general_ci
    // table. `!` as the escape character, because the meaning of a backslash depends on the SQL mode.
    q.nameContains === undefined
      ? undefined
      : sql`${timers.name} COLLATE utf8mb4_general_ci LIKE ${`%${likeLiteral(q.nameContains)}%`} ESCAPE '!'`,
    // JSON_OBJECT from parameters: no key or value is ever spliced into a JSON path.
    ...Object.entries(q.labels ?? {}).map(
      ([key, value]) => sql`JSON_CONTAINS(${timers.labels}, JSON_OBJECT(${key}, ${value}))`,
    ),
    q.afterId === undefined ? undefined : gt(timers.id, q.afterId),
  );
}

/** Timers in MySQL. `db` may be a transaction. */
export class TimerRepository {
  constructor(private readonly db: Db) {}

  withDb(db: Db): TimerRepository {
    return new TimerRepository(db);
  }

  /**
   * Stores new timers with their first plans in one multi-row INSERT and returns them as
   * stored, without reading them back. Raw SQL: the create path is hot (drizzle's insert
   * builder costs ~12 µs a row, a read-back a round trip). A name an app already has
   * fails the whole statement: TIMER_NAME_TAKEN, with the index of the first such timer.
   * Rows are put together with Object.assign: a spread of ~30 columns costs ~16 µs.
   */
  async insertMany(rows: readonly NewTimer[], at: Date): Promise<Timer[]> {
    if (rows.length === 0) return [];
    const stored = rows.map((r) =>
      Object.assign(toColumns(r.draft), planColumns(r.plan), {
        plannedFrom: date(r.plannedFrom),
        pausedNote: null,
        pausedAt: null,
        pausedUntil: null,
        failureStreak: 0,
        createdAt: at,
        updatedAt: at,
      }),
    );
    let insertId: number;
    try {
      const [result] = await this.db.execute(multiRowInsert(timers, stored));
      insertId = Number((result as unknown as { insertId: number }).insertId);
    } catch (err) {
      if (isDuplicateKey(err)) throw await this.firstTaken(rows.map((r) => r.draft));
      throw err;
    }
    // One row: its id. Several: their ids by name (an INSERT's ids need not be consecutive).
    const ids =
      rows.length === 1
        ? [insertId]
        : await this.idsByName(rows.map((r) => r.draft)).then((found) =>
            rows.map((r) => found.get(nameKey(r.draft))),
          );
    return stored.map((row, i) => {
      const id = ids[i];
      if (id === undefined) throw new Error(`timer ${row.app}/${row.name} not found after its insert`);
      return toTimer(Object.assign(row, { id, version: 1 }));
    });
  }

  /** TIMER_NAME_TAKEN for the first of `drafts` whose app already has its name (with its index, of several). */
  private async firstTaken(drafts: readonly TimerDraft[]): Promise<XtimerError> {
    const taken = await this.idsByName(drafts);
    const index = Math.max(
      0,
      drafts.findIndex((d) => taken.has(nameKey(d))),
    );
    const err = nameTaken(drafts[index]!);
    return drafts.length === 1
      ? err
      : new XtimerError(err.code, err.message, [
          { path: `timers.${index}.name`, message: err.message, index },
        ]);
  }

  /** The ids of the stored timers with these apps and names, by nameKey. */
  private async idsByName(drafts: readonly TimerDraft[]): Promise<Map<string, number>> {
    const found = await this.db
      .select({ id: timers.id, app: timers.app, name: timers.name })
      .from(timers)
      .where(
        and(
          inArray(timers.app, [...new Set(drafts.map((d) => d.app))]),
          inArray(timers.name, [...new Set(drafts.map((d) => d.name))]),
        ),
      );
    return new Map(found.map((r) => [nameKey(r), r.id]));
  }

  /** One new timer with no plan yet (the service creates through insertMany, with its first plan). */
  async insert(draft: TimerDraft): Promise<Timer> {
    const unplanned = { plannedUntil: null, runsPlanned: 0, finalRunAt: null };
    const [created] = await this.insertMany([{ draft, plannedFrom: null, plan: unplanned }], new Date());
    return created!;
  }

  /** The timer; `forUpdate` locks its row for the rest of the transaction. */
  async findById(id: number, options: { forUpdate?: boolean } = {}): Promise<Timer | null> {
    const q = this.db.select().from(timers).where(eq(timers.id, id));
    const rows = options.forUpdate ? await q.for('update') : await q;
    return rows[0] ? toTimer(rows[0]) : null;
  }

  /** The app's timer of that name; `forUpdate` locks its row for the rest of the transaction. */
  async findByName(app: string, name: string, options: { forUpdate?: boolean } = {}): Promise<Timer | null> {
    const q = this.db
      .select()
      .from(timers)
      .where(and(eq(timers.app, app), eq(timers.name, name)));
    const rows = options.forUpdate ? await q.for('update') : await q;
    return rows[0] ? toTimer(rows[0]) : null;
  }

  /** Every timer of the app, id order; `forUpdate` locks their rows (an apply compares and changes them all). */
  async listByApp(app: string, options: { forUpdate?: boolean } = {}): Promise<Timer[]> {
    const q = this.db.select().from(timers).where(eq(timers.app, app)).orderBy(asc(timers.id));
    const rows = options.forUpdate ? await q.for('update') : await q;
    return rows.map(toTimer);
  }

  /** The timers, their rows locked for the rest of the transaction in id order (batches never wait on each other in a cycle). */
  async lockMany(ids: readonly number[]): Promise<Timer[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .select()
      .from(timers)
      .where(inArray(timers.id, [...ids]))
      .orderBy(timers.id)
      .for('update');
    return rows.map(toTimer);
  }

  async findByIds(ids: readonly number[]): Promise<Timer[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .select()
      .from(timers)
      .where(inArray(timers.id, [...ids]));
    return rows.map(toTimer);
  }

  /** Keyset pagination in id order: stable while rows are added or removed. */
  async list(q: TimerListQuery): Promise<Timer[]> {
    const rows = await this.db
      .select()
      .from(timers)
      .where(whereOf(q))
      .orderBy(q.newestFirst ? desc(timers.id) : asc(timers.id))
      .limit(q.limit)
      .offset(q.offset ?? 0);
    return rows.map(toTimer);
  }

  /** How many timers each of `apps` has (an app with none is absent). */
  async countByApp(apps: readonly string[]): Promise<Map<string, number>> {
    if (apps.length === 0) return new Map();
    const rows = await this.db
      .select({ app: timers.app, n: sql<number>`count(*)` })
      .from(timers)
      .where(inArray(timers.app, [...apps]))
      .groupBy(timers.app);
    return new Map(rows.map((r) => [r.app, Number(r.n)]));
  }

  async count(q: Omit<TimerListQuery, 'limit' | 'afterId' | 'offset' | 'newestFirst'>): Promise<number> {
    const [row] = await this.db.select({ n: sql<number>`count(*)` }).from(timers).where(whereOf(q));
    return Number(row?.n ?? 0);
  }

  /** Writes the whole timer (already merged by the service) and bumps its version. */
  async update(timer: Timer): Promise<void> {
    try {
      await this.db
        .update(timers)
        .set({ ...toColumns(timer), version: sql`${timers.version} + 1` })
        .where(eq(timers.id, timer.id));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameTaken(timer);
      throw err;
    }
  }

  async setStatus(id: number, status: TimerStatus): Promise<void> {
    await this.db
      .update(timers)
      .set({ status, version: sql`${timers.version} + 1` })
      .where(eq(timers.id, id));
  }

  /**
   * Disables the timers in one statement: inactive, a new version, its plan ended at now
   * (no runs planned past it), paused with the note and `until`, its failure streak reset.
   */
  async disableMany(
    ids: readonly number[],
    pause: { note: string | null; at: number; until: number | null },
  ): Promise<void> {
    await this.db
      .update(timers)
      .set({
        status: 'inactive',
        version: sql`${timers.version} + 1`,
        plannedFrom: new Date(pause.at),
        plannedUntil: null,
        finalRunAt: null,
        pausedNote: pause.note,
        pausedAt: new Date(pause.at),
        pausedUntil: pause.until === null ? null : new Date(pause.until),
        failureStreak: 0,
        // The caller's clock, as in the pause: it knows the row without reading it back.
        updatedAt: new Date(pause.at),
      })
      .where(inArray(timers.id, [...ids]));
  }

  /** Records why and until when a timer is paused (null: clears it, on enable), and restarts its failure streak. */
  async setPause(
    id: number,
    pause: { note: string | null; at: number; until: number | null } | null,
  ): Promise<void> {
    await this.db
      .update(timers)
      .set({
        pausedNote: pause?.note ?? null,
        pausedAt: pause === null ? null : new Date(pause.at),
        pausedUntil: pause?.until == null ? null : new Date(pause.until),
        failureStreak: 0,
        updatedAt: sql`${timers.updatedAt}`,
      })
      .where(eq(timers.id, id));
  }

  /** Disabled timers whose pause has run out by `nowMs` (the pause sweep's range on (status, paused_until)). */
  async pauseEndedIds(nowMs: number, limit = 100): Promise<number[]> {
    const rows = await this.db
      .select({ id: timers.id })
      .from(timers)
      .where(and(eq(timers.status, 'inactive'), lte(timers.pausedUntil, new Date(nowMs))))
      .limit(limit);
    return rows.map((r) => r.id);
  }

  /** The app's timers that name `calendar` in skipCalendars, locked for the rest of the transaction. */
  async usingCalendar(app: string, calendar: string): Promise<Timer[]> {
    const rows = await this.db
      .select()
      .from(timers)
      .where(and(eq(timers.app, app), sql`JSON_CONTAINS(${timers.skipCalendars}, JSON_QUOTE(${calendar}))`))
      .orderBy(asc(timers.id))
      .for('update');
    return rows.map(toTimer);
  }

  /** The ids of an app's timers in `status`. */
  async idsOfApp(app: string, status: TimerStatus): Promise<number[]> {
    const rows = await this.db
      .select({ id: timers.id })
      .from(timers)
      .where(and(eq(timers.app, app), eq(timers.status, status)))
      .orderBy(asc(timers.id));
    return rows.map((r) => r.id);
  }

  /**
   * Counts a settled run into the timer's failure streak: one more after a failure, none
   * after a success. Returns the streak. One statement: LAST_INSERT_ID(expr) hands the
   * new value back in the same round trip, whichever executor settles the run.
   */
  async countFailure(id: number, failed: boolean): Promise<number> {
    if (!failed) {
      await this.db
        .update(timers)
        .set({ failureStreak: 0, updatedAt: sql`${timers.updatedAt}` })
        .where(eq(timers.id, id));
      return 0;
    }
    const [result] = await this.db.execute(
      sql`UPDATE timers SET failure_streak = LAST_INSERT_ID(failure_streak + 1) WHERE id = ${id}`,
    );
    return Number((result as unknown as { insertId: number }).insertId);
  }

  /**
   * Marks an active timer completed (its schedule has made its last run); false if it was
   * not active or, with `finalRunAt`, its final run is later than that or unknown (a PATCH
   * moved its end on after the caller read it).
   */
  async complete(id: number, finalRunAt?: number): Promise<boolean> {
    const [result] = await this.db
      .update(timers)
      .set({ status: 'completed', plannedUntil: null, version: sql`${timers.version} + 1` })
      .where(
        and(
          eq(timers.id, id),
          eq(timers.status, 'active'),
          finalRunAt === undefined ? undefined : lte(timers.finalRunAt, new Date(finalRunAt)),
        ),
      );
    return result.affectedRows > 0;
  }

  /**
   * Active timers whose schedule has ended — endAt passed, a one-shot's or the final run's
   * time long gone, maxRuns planned — with no run of theirs still pending or running. A
   * jittered run falls up to jitter_ms after its instant: endAt and `at` count from there.
   */
  async endedIds(now: number, graceMs: number, limit = 1000): Promise<number[]> {
    const [rows] = await this.db.execute(sql`
      SELECT t.id FROM timers t
       WHERE t.status = 'active'
         AND ((t.end_at IS NOT NULL AND t.end_at + INTERVAL t.jitter_ms * 1000 MICROSECOND <= ${new Date(now)})
           OR (t.final_run_at IS NOT NULL AND t.final_run_at < ${new Date(now - graceMs)})
           OR (t.at IS NOT NULL AND t.at + INTERVAL t.jitter_ms * 1000 MICROSECOND < ${new Date(now - graceMs)})
           OR (t.max_runs IS NOT NULL AND t.runs_planned >= t.max_runs))
         AND NOT EXISTS (SELECT 1 FROM tasks k WHERE k.timer_id = t.id AND k.status IN ('pending', 'running'))
       LIMIT ${limit}`);
    return (rows as unknown as Array<{ id: number }>).map((r) => Number(r.id));
  }

  /** Records that a new plan of the timer begins at `fromMs` (a create, an enable, a schedule change). */
  async startPlan(id: number, fromMs: number, plan: PlanRecord): Promise<void> {
    await this.db
      .update(timers)
      .set({ plannedFrom: new Date(fromMs), ...planColumns(plan), updatedAt: sql`${timers.updatedAt}` })
      .where(eq(timers.id, id));
  }

  /**
   * Records how far a timer's runs now reach, how many were planned and its final run,
   * only if it is still `version` and its runs still reached `expectedUntil` (the plan was
   * made from there): a migration run twice, or racing a change, records its plan once or
   * not at all. The version too, since a change can leave `planned_until` where it was.
   */
  async recordPlan(
    id: number,
    version: number,
    expectedUntil: number | null,
    plan: PlanRecord,
  ): Promise<boolean> {
    const [result] = await this.db
      .update(timers)
      .set({ ...planColumns(plan), updatedAt: sql`${timers.updatedAt}` })
      .where(
        and(
          eq(timers.id, id),
          eq(timers.version, version),
          expectedUntil === null
            ? isNull(timers.plannedUntil)
            : eq(timers.plannedUntil, new Date(expectedUntil)),
        ),
      );
    return result.affectedRows > 0;
  }

  /**
   * Records that runs of these timers now exist up to `untilMs` (null: none planned);
   * with `version`, only for those still at that version (not changed since planned) and
   * planned to an earlier end.
   */
  async setPlannedUntil(ids: readonly number[], untilMs: number | null, version?: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .update(timers)
      .set({ plannedUntil: untilMs === null ? null : new Date(untilMs), updatedAt: sql`${timers.updatedAt}` })
      .where(
        and(
          inArray(timers.id, [...ids]),
          version === undefined ? undefined : eq(timers.version, version),
          // Two top-ups of different minutes may plan the same timers: the shorter one,
          // finishing last, must not move the end back and have the runs between planned again.
          version === undefined || untilMs === null
            ? undefined
            : or(isNull(timers.plannedUntil), lt(timers.plannedUntil, new Date(untilMs))),
        ),
      );
  }

  /** Of `ids`, the timers still active, with their version now (one query, for the migrator). */
  async activeVersions(ids: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    // In chunks: drizzle spreads a statement's parameters into one call, which overflows
    // the stack past ~100,000 of them.
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const rows = await this.db
        .select({ id: timers.id, version: timers.version })
        .from(timers)
        .where(and(inArray(timers.id, ids.slice(i, i + ID_CHUNK)), eq(timers.status, 'active')));
      for (const r of rows) out.set(r.id, r.version);
    }
    return out;
  }

  /**
   * A page of active timers (id order) whose runs stop short of `beforeMs`, with where they
   * stop; with `fromMs`, only those whose runs stop there or later.
   */
  async pageToPlan(
    beforeMs: number,
    afterId: number,
    limit: number,
    fromMs: number | null = null,
  ): Promise<Array<{ timer: Timer; plannedUntil: number | null }>> {
    const stopsBefore = lt(timers.plannedUntil, new Date(beforeMs));
    const rows = await this.db
      .select()
      .from(timers)
      .where(
        and(
          eq(timers.status, 'active'),
          gt(timers.id, afterId),
          fromMs === null
            ? or(isNull(timers.plannedUntil), stopsBefore)
            : and(gte(timers.plannedUntil, new Date(fromMs)), stopsBefore),
        ),
      )
      .orderBy(asc(timers.id))
      .limit(limit);
    return rows.map((row) => ({
      timer: toTimer(row),
      plannedUntil: row.plannedUntil ? row.plannedUntil.getTime() : null,
    }));
  }

  async delete(id: number): Promise<boolean> {
    const [result] = await this.db.delete(timers).where(eq(timers.id, id));
    return result.affectedRows > 0;
  }
}
