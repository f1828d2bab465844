import { eq } from 'drizzle-orm';
import { auditEntry, type ChangeAuthor } from '../../domain/audit.js';
import type { Database } from '../../storage/db/client.js';
import { servicePause } from '../../storage/db/schema.js';
import type { RedisClient } from '../../storage/redis/connection.js';
import { type Actor, actorName, assertAdmin } from '../timers/access.js';
import type { AuditService } from './audit-service.js';

/** The pause of the whole service: why, since when, and who asked. */
export interface ServicePauseState {
  note: string;
  pausedAt: number;
  pausedBy: string;
}

/** The brake as one caller uses it (ServicePause.as). */
export interface ScopedServicePause {
  get(): Promise<ServicePauseState | null>;
  pause(note: string): Promise<ServicePauseState>;
  resume(): Promise<ServicePauseState | null>;
}

/** The audit log's app for changes to the whole service. */
export const ALL_APPS = '*';

const ROW = 1;

/**
 * The emergency brake: a pause of every app at once. While it lasts, scheduled runs
 * and backfills are recorded `skipped` ("paused: <note>") instead of called, whatever
 * is queued already included; a user's run now and retry still go. MySQL keeps it; Redis
 * holds the copy executors look at every second, written again from MySQL by `sync` if
 * Redis lost it.
 */
export class ServicePause {
  constructor(
    private readonly d: {
      database: Database;
      redis: RedisClient;
      /** The Redis key of the copy (keys.servicePause()). */
      key: string;
      audit: AuditService;
      now(): number;
    },
  ) {}

  /** The brake as `actor` may use it: the admin's alone (an app key: FORBIDDEN), changes audited under its name. */
  as(actor: Actor): ScopedServicePause {
    assertAdmin(actor);
    const by: ChangeAuthor = { actor: actorName(actor) };
    return {
      get: () => this.get(),
      pause: (note) => this.pause(note, by),
      resume: () => this.resume(by),
    };
  }

  async get(): Promise<ServicePauseState | null> {
    const [row] = await this.d.database.db.select().from(servicePause).where(eq(servicePause.id, ROW));
    return row ? { note: row.note, pausedAt: row.pausedAt.getTime(), pausedBy: row.pausedBy } : null;
  }

  /** Pauses the service (a pause under way gets the new note); audited. */
  async pause(note: string, by: ChangeAuthor): Promise<ServicePauseState> {
    const state = await this.d.database.transaction(async (tx) => {
      const before = await this.get();
      const state: ServicePauseState = {
        note,
        pausedAt: before?.pausedAt ?? this.d.now(),
        pausedBy: by.actor,
      };
      await tx.db
        .insert(servicePause)
        .values({ id: ROW, note, pausedAt: new Date(state.pausedAt), pausedBy: by.actor })
        .onDuplicateKeyUpdate({ set: { note, pausedBy: by.actor } });
      await this.d.audit.record(
        auditEntry(by, 'pause_all', { app: ALL_APPS, timerId: null }, before ? { ...before } : null, {
          ...state,
        }),
        tx,
      );
      return state;
    });
    await this.d.redis.set(this.d.key, JSON.stringify(state));
    return state;
  }

  /** Ends the pause; returns it (null if there was none). Audited. */
  async resume(by: ChangeAuthor): Promise<ServicePauseState | null> {
    const ended = await this.d.database.transaction(async (tx) => {
      const before = await this.get();
      if (!before) return null;
      await tx.db.delete(servicePause).where(eq(servicePause.id, ROW));
      await this.d.audit.record(
        auditEntry(by, 'resume_all', { app: ALL_APPS, timerId: null }, { ...before }, null),
        tx,
      );
      return before;
    });
    await this.d.redis.del(this.d.key);
    return ended;
  }

  /** Writes Redis's copy as MySQL has it (Redis may have lost it, or a write to it failed). */
  async sync(): Promise<void> {
    const state = await this.get();
    if (state) await this.d.redis.set(this.d.key, JSON.stringify(state));
    else await this.d.redis.del(this.d.key);
  }
}

/** How often an executor looks whether the service is paused. */
const LOOK_EVERY_MS = 1000;

/**
 * An executor's view of the pause: Redis's copy, read every second, so a pause reaches
 * every process within about a second and firing never waits on MySQL for it. While
 * Redis cannot be read, the last view stands.
 */
export class PauseWatch {
  private state: ServicePauseState | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  readonly current = (): ServicePauseState | null => this.state;

  async look(): Promise<void> {
    const raw = await this.redis.get(this.key);
    this.state = raw === null ? null : (JSON.parse(raw) as ServicePauseState);
  }

  async start(): Promise<this> {
    await this.look().catch(() => undefined);
    this.timer = setInterval(() => void this.look().catch(() => undefined), LOOK_EVERY_MS);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
