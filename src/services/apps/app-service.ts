import type { TargetGuard } from '../../callback/target-guard.js';
import { newSigningSecret } from '../../callback/webhook-signer.js';
import { type AuditFields, auditEntry, maskFields } from '../../domain/audit.js';
import { type Notify, parseNotify } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import { apiKeyId, hashApiKey, looksLikeApiKey, newApiKey, tokensEqual } from '../../security/api-keys.js';
import type { SecretBox } from '../../security/secret-box.js';
import { AppRepository, type AppRow } from '../../storage/db/app-repository.js';
import type { Database, Transaction } from '../../storage/db/client.js';
import {
  type Actor,
  ADMIN,
  actorName,
  appActor,
  assertAdmin,
  assertCanUseApp,
  assertNotRetired,
  OPEN,
} from '../timers/access.js';
import type { AuditService } from './audit-service.js';

export interface AppServiceDeps {
  database: Database;
  /** Seals the signing secrets at rest. */
  box: SecretBox;
  /** XTIMER_ADMIN_TOKEN; undefined = open mode (a request without a token acts as admin). */
  adminToken: string | undefined;
  /** APP_KEY_GRACE_SECONDS: how long a rotated-out key or secret stays valid by default. */
  graceSeconds: number;
  /** Tells every process an app's keys or secrets changed (executors drop their signing keys). */
  announce(app: string): Promise<void>;
  /** Records app creation and every rotation. */
  audit: AuditService;
  /** The SSRF guard, over the app's notify URL. */
  guard?: TargetGuard | undefined;
  now(): number;
}

export interface AppInfo {
  app: string;
  /** The current API key's public id (`app:hex`), as the audit log names its changes. */
  keyId: string;
  createdAt: Date;
  updatedAt: Date;
  /** Until when the key replaced by the last key rotation still works; null = it no longer does. */
  previousKeyValidUntil: Date | null;
  /** Until when callbacks are also signed with the secret replaced by the last rotation. */
  previousSecretValidUntil: Date | null;
  /** Where failed or missed runs of timers that set no `notify` of their own are reported. */
  notify: Notify | null;
}

/** Credentials shown once, when issued. */
export interface IssuedApp extends AppInfo {
  apiKey?: string;
  signingSecret?: string;
}

export const ROTATABLE = ['key', 'secret'] as const;
export type Rotatable = (typeof ROTATABLE)[number];

const stillValid = (until: Date | null, now: number): Date | null =>
  until !== null && until.getTime() > now ? until : null;

/** Apps and their credentials: creation, rotation, and who a bearer token is. */
export class AppService {
  private readonly apps: AppRepository;

  constructor(private readonly deps: AppServiceDeps) {
    this.apps = new AppRepository(deps.database.db);
  }

  /** Open mode: no admin token configured, the API answers anyone. */
  get open(): boolean {
    return this.deps.adminToken === undefined;
  }

  /** Compares a token with XTIMER_ADMIN_TOKEN in constant time; null in open mode (for the dashboard). */
  get adminTokenCheck(): ((token: string) => boolean) | null {
    const admin = this.deps.adminToken;
    return admin === undefined ? null : (token) => tokensEqual(token, admin);
  }

  /**
   * The actor an Authorization header stands for, or null (401): the admin token, an
   * app's current key, or its previous key within its grace period (a retired actor).
   * Without a header the
   * caller is the admin in open mode and nobody otherwise. A token that is presented is
   * checked even in open mode, so clients written against app keys behave the same there.
   */
  async authenticate(authorization: string | undefined): Promise<Actor | null> {
    if (authorization === undefined) return this.open ? OPEN : null;
    const match = /^Bearer[ ]+([\x21-\x7e]{1,512})[ ]*$/i.exec(authorization);
    if (!match) return null;
    const token = match[1]!;
    if (this.deps.adminToken !== undefined && tokensEqual(token, this.deps.adminToken)) return ADMIN;
    if (!looksLikeApiKey(token)) return null;
    const hash = hashApiKey(token);
    const found = await this.apps.findByKeyHash(hash, this.deps.now());
    return found === null ? null : appActor(found.name, apiKeyId(found.name, hash), found.retired);
  }

  /** Creates an app with a new API key and signing secret (admin only); both are returned only here. */
  async create(actor: Actor, name: string): Promise<IssuedApp> {
    assertAdmin(actor);
    const apiKey = newApiKey();
    const signingSecret = newSigningSecret();
    const keyHash = hashApiKey(apiKey);
    await this.deps.database.transaction(async (tx) => {
      const inserted = await this.apps.withDb(tx.db).insert({
        name,
        keyHash,
        signingSecret: this.deps.box.seal(signingSecret, name),
      });
      if (!inserted) throw new XtimerError(ErrorCode.APP_EXISTS, `app ${name} already exists`);
      await this.record(tx, actor, 'app_create', name, null, { keyId: apiKeyId(name, keyHash) });
    });
    await this.deps.announce(name);
    return { ...this.info((await this.apps.find(name))!), apiKey, signingSecret };
  }

  async list(actor: Actor): Promise<AppInfo[]> {
    assertAdmin(actor);
    return (await this.apps.list()).map((row) => this.info(row));
  }

  async get(actor: Actor, name: string): Promise<AppInfo> {
    assertCanUseApp(actor, name);
    const row = await this.apps.find(name);
    if (!row) throw appNotFound(name);
    return this.info(row);
  }

  /**
   * Issues a new API key or signing secret. The one it replaces stays valid for
   * `graceSeconds` (default APP_KEY_GRACE_SECONDS; 0 revokes it at once); one replaced
   * earlier and still in its grace ends now. The admin or the app itself (its current key) may rotate.
   */
  async rotate(actor: Actor, name: string, what: Rotatable, graceSeconds?: number): Promise<IssuedApp> {
    assertCanUseApp(actor, name);
    assertNotRetired(actor, 'rotate keys or secrets');
    const now = this.deps.now();
    const grace = (graceSeconds ?? this.deps.graceSeconds) * 1000;
    const until = grace > 0 ? new Date(now + grace) : null;
    const issued = await this.deps.database.transaction(async (tx) => {
      const apps = this.apps.withDb(tx.db);
      const row = await apps.findForUpdate(name);
      if (!row) throw appNotFound(name);
      const validUntil = until?.toISOString() ?? null;
      if (what === 'key') {
        const apiKey = newApiKey();
        const keyHash = hashApiKey(apiKey);
        await apps.update(name, {
          keyHash,
          prevKeyHash: until === null ? null : row.keyHash,
          prevKeyUntil: until,
        });
        await this.record(
          tx,
          actor,
          'key_rotate',
          name,
          { keyId: apiKeyId(name, row.keyHash) },
          { keyId: apiKeyId(name, keyHash), previousKeyValidUntil: validUntil },
        );
        return { apiKey };
      }
      const signingSecret = newSigningSecret();
      await apps.update(name, {
        signingSecret: this.deps.box.seal(signingSecret, name),
        prevSigningSecret: until === null ? null : row.signingSecret,
        prevSigningSecretUntil: until,
      });
      // The secrets themselves never reach the log: only that one was replaced, and until when the old one signs.
      await this.record(tx, actor, 'secret_rotate', name, null, { previousSecretValidUntil: validUntil });
      return { signingSecret };
    });
    await this.deps.announce(name);
    return { ...this.info((await this.apps.find(name))!), ...issued };
  }

  /** Sets (or, with null, clears) the app's default failure notification: the admin or the app itself. */
  async setNotify(actor: Actor, name: string, notify: Notify | null): Promise<AppInfo> {
    assertCanUseApp(actor, name);
    assertNotRetired(actor, "change the app's notify");
    if (notify) await this.deps.guard?.assertAllowed(notify.url, 'notify.url');
    await this.deps.database.transaction(async (tx) => {
      const apps = this.apps.withDb(tx.db);
      const row = await apps.findForUpdate(name);
      if (!row) throw appNotFound(name);
      await apps.update(name, { notify: notify === null ? null : JSON.stringify(notify) });
      const fields = (n: Notify | null) => maskFields({ notify: n });
      await this.record(tx, actor, 'app_update', name, fields(parseNotify(row.notify)), fields(notify));
    });
    return this.info((await this.apps.find(name))!);
  }

  private async record(
    tx: Transaction,
    actor: Actor,
    action: 'app_create' | 'app_update' | 'key_rotate' | 'secret_rotate',
    app: string,
    before: AuditFields | null,
    after: AuditFields,
  ): Promise<void> {
    await this.deps.audit.record(
      auditEntry({ actor: actorName(actor) }, action, { app, timerId: null }, before, after),
      tx,
    );
  }

  private info(row: AppRow): AppInfo {
    const now = this.deps.now();
    return {
      app: row.name,
      keyId: apiKeyId(row.name, row.keyHash),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      previousKeyValidUntil: row.prevKeyHash === null ? null : stillValid(row.prevKeyUntil, now),
      previousSecretValidUntil:
        row.prevSigningSecret === null ? null : stillValid(row.prevSigningSecretUntil, now),
      notify: parseNotify(row.notify),
    };
  }
}

const appNotFound = (name: string) => new XtimerError(ErrorCode.APP_NOT_FOUND, `app ${name} does not exist`);
