import type { AuditDraft, AuditEntry } from '../../domain/audit.js';
import { AuditRepository } from '../../storage/db/audit-repository.js';
import type { Database, Transaction } from '../../storage/db/client.js';
import { type Actor, assertCanUseApp } from '../timers/access.js';
import { decodeCursor, type Page, pageOf } from '../timers/page.js';

export interface AuditQuery {
  app?: string | undefined;
  timerId?: number | undefined;
  batchId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * The audit log: what the timer and app services record of every change, and who may
 * read it — the admin everything, an app key only its own app's entries.
 */
export class AuditService {
  private readonly entries: AuditRepository;

  constructor(database: Database) {
    this.entries = new AuditRepository(database.db);
  }

  /** Writes entries; given the change's transaction, they commit or roll back with it. */
  async record(entries: AuditDraft | readonly AuditDraft[], tx?: Transaction): Promise<void> {
    const all = Array.isArray(entries) ? entries : [entries as AuditDraft];
    await (tx ? this.entries.withDb(tx.db) : this.entries).insert(all);
  }

  /** Newest first. An app key reads its own app's entries, whether or not the query names it. */
  async list(actor: Actor, q: AuditQuery): Promise<Page<AuditEntry>> {
    if (q.app !== undefined) assertCanUseApp(actor, q.app);
    const app = actor.kind === 'app' ? actor.app : q.app;
    const items = await this.entries.list({
      ...(app === undefined ? {} : { app }),
      ...(q.timerId === undefined ? {} : { timerId: q.timerId }),
      ...(q.batchId === undefined ? {} : { batchId: q.batchId }),
      ...(q.cursor === undefined ? {} : { beforeId: decodeCursor(q.cursor) }),
      limit: q.limit + 1,
    });
    return pageOf(items, q.limit, (e) => e.id);
  }
}
