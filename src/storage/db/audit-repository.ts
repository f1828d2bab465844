import { and, desc, eq, lt } from 'drizzle-orm';
import type { AuditAction, AuditDraft, AuditEntry, AuditFields } from '../../domain/audit.js';
import type { Db } from './client.js';
import { multiRowInsert } from './multi-row-insert.js';
import { type AuditRow, auditLog } from './schema.js';

export interface AuditListQuery {
  app?: string;
  timerId?: number;
  batchId?: string;
  /** Only entries older than this id (the cursor). */
  beforeId?: number;
  limit: number;
}

const json = (v: AuditFields | null) => (v === null ? null : JSON.stringify(v));
const parsed = (v: string | null) => (v === null ? null : (JSON.parse(v) as AuditFields));

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at.getTime(),
    actor: row.actor,
    action: row.action as AuditAction,
    app: row.app,
    timerId: row.timerId,
    batchId: row.batchId,
    before: parsed(row.before),
    after: parsed(row.after),
  };
}

/** The audit log in MySQL. `db` may be a transaction: an entry commits with its change. */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  withDb(db: Db): AuditRepository {
    return new AuditRepository(db);
  }

  /** One multi-row INSERT, raw (a batch create audits each of its timers). */
  async insert(entries: readonly AuditDraft[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.execute(
      multiRowInsert(
        auditLog,
        entries.map((e) => ({
          actor: e.actor,
          action: e.action,
          app: e.app,
          timerId: e.timerId,
          batchId: e.batchId,
          before: json(e.before),
          after: json(e.after),
        })),
      ),
    );
  }

  /** Newest first, keyset-paginated on id. */
  async list(q: AuditListQuery): Promise<AuditEntry[]> {
    const rows = await this.db
      .select()
      .from(auditLog)
      .where(
        and(
          q.app === undefined ? undefined : eq(auditLog.app, q.app),
          q.timerId === undefined ? undefined : eq(auditLog.timerId, q.timerId),
          q.batchId === undefined ? undefined : eq(auditLog.batchId, q.batchId),
          q.beforeId === undefined ? undefined : lt(auditLog.id, q.beforeId),
        ),
      )
      .orderBy(desc(auditLog.id))
      .limit(q.limit);
    return rows.map(toEntry);
  }
}
