import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { HttpMethod, MisfirePolicy, Timer, TimerDraft, TimerStatus } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import type { Db } from './client.js';
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
    status: row.status as TimerStatus,
    version: row.version,
    plannedFrom: row.plannedFrom ? row.plannedFrom.getTime() : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toColumns(t: TimerDraft) {
  return {
    app: t.app,
    name: t.name,
    cron: t.cron,
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
    status: t.status,
  };
}

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
    q.afterId === undefined ? undefined : gt(timers.id, q.afterId),
  );
}

/** Timers in MySQL. `db` may be a transaction. */
export class TimerRepository {
  constructor(private readonly db: Db) {}

  withDb(db: Db): TimerRepository {
    return new TimerRepository(db);
  }

  async insert(draft: TimerDraft): Promise<Timer> {
    try {
      const [result] = await this.db.insert(timers).values(toColumns(draft)).$returningId();
      const created = await this.findById(result!.id);
      return created!;
    } catch (err) {
      if (isDuplicateKey(err)) throw nameTaken(draft);
      throw err;
    }
  }

  /** The timer; `forUpdate` locks its row for the rest of the transaction. */
  async findById(id: number, options: { forUpdate?: boolean } = {}): Promise<Timer | null> {
    const q = this.db.select().from(timers).where(eq(timers.id, id));
    const rows = options.forUpdate ? await q.for('update') : await q;
    return rows[0] ? toTimer(rows[0]) : null;
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

  /** Records that a new plan of the timer begins at `fromMs` and its runs exist up to `untilMs`. */
  async startPlan(id: number, fromMs: number, untilMs: number): Promise<void> {
    await this.db
      .update(timers)
      .set({
        plannedFrom: new Date(fromMs),
        plannedUntil: new Date(untilMs),
        updatedAt: sql`${timers.updatedAt}`,
      })
      .where(eq(timers.id, id));
  }

  /** Records that runs of these timers now exist up to `untilMs` (null: none planned). */
  async setPlannedUntil(ids: readonly number[], untilMs: number | null): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .update(timers)
      .set({ plannedUntil: untilMs === null ? null : new Date(untilMs), updatedAt: sql`${timers.updatedAt}` })
      .where(inArray(timers.id, [...ids]));
  }

  /** A page of active timers (id order) whose runs stop short of `horizonMs`, with where they stop. */
  async pageToPlan(
    horizonMs: number,
    afterId: number,
    limit: number,
  ): Promise<Array<{ timer: Timer; plannedUntil: number | null }>> {
    const rows = await this.db
      .select()
      .from(timers)
      .where(
        and(
          eq(timers.status, 'active'),
          gt(timers.id, afterId),
          or(isNull(timers.plannedUntil), lt(timers.plannedUntil, new Date(horizonMs))),
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
