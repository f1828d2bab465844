import { randomBytes } from 'node:crypto';
import type { Pool } from 'mysql2/promise';

/** One change's mark: the timer, and the token that tells it from a later change's. */
export interface OutboxMark {
  timerId: number;
  token: string;
}

/**
 * The plan outbox (`plan_outbox`): timers whose committed change has not reached Redis
 * yet. Raw SQL on the pool, or on a transaction's connection for `mark`.
 */
export class PlanOutboxRepository {
  constructor(private readonly pool: Pick<Pool, 'query'>) {}

  withConn(conn: Pick<Pool, 'query'>): PlanOutboxRepository {
    return new PlanOutboxRepository(conn);
  }

  /** Marks the timers as changed (in the change's transaction); a later mark replaces an earlier one. */
  async mark(timerIds: readonly number[]): Promise<OutboxMark[]> {
    if (timerIds.length === 0) return [];
    const token = randomBytes(8).toString('hex');
    const ids = [...new Set(timerIds)];
    await this.pool.query(
      `INSERT INTO plan_outbox (timer_id, token, marked_at) VALUES ${ids.map(() => '(?, ?, UTC_TIMESTAMP(3))').join(',')}
       ON DUPLICATE KEY UPDATE token = VALUES(token), marked_at = VALUES(marked_at)`,
      ids.flatMap((id) => [id, token]),
    );
    return ids.map((timerId) => ({ timerId, token }));
  }

  /** Clears marks whose change has reached Redis (a later change's mark stays). */
  async clear(marks: readonly OutboxMark[]): Promise<void> {
    if (marks.length === 0) return;
    await this.pool.query(
      `DELETE FROM plan_outbox WHERE (timer_id, token) IN (${marks.map(() => '(?, ?)').join(',')})`,
      marks.flatMap((m) => [m.timerId, m.token]),
    );
  }

  /** Marks made before `beforeMs`: changes whose publisher has died or failed. */
  async olderThan(beforeMs: number, limit: number): Promise<OutboxMark[]> {
    const [rows] = await this.pool.query(
      'SELECT timer_id, token FROM plan_outbox WHERE marked_at < ? ORDER BY marked_at LIMIT ?',
      [new Date(beforeMs), limit],
    );
    return (rows as Array<{ timer_id: number; token: string }>).map((r) => ({
      timerId: Number(r.timer_id),
      token: r.token,
    }));
  }
}
