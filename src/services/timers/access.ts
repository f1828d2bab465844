import type { ChangeAuthor } from '../../domain/audit.js';
import { ErrorCode, RateLimitedError, XtimerError } from '../../errors.js';
import type { RateLimiter } from '../../storage/redis/rate-limiter.js';

/**
 * Who is calling (docs/security.md): the administrator (XTIMER_ADMIN_TOKEN, or anyone
 * in open mode), or one app by its API key. The rule, in one place: an app sees and
 * changes only its own timers, tasks and app record; everything else is the admin's.
 */
export type Actor = { kind: 'admin'; open?: boolean } | AppActor;

/** An app, by the key it called with (`keyId` names the key in the audit log). */
export interface AppActor {
  kind: 'app';
  app: string;
  keyId: string;
  /** The key was replaced by a rotation and works only until its grace period ends. */
  retired?: boolean;
}

/** The holder of XTIMER_ADMIN_TOKEN (or of the dashboard's credentials). */
export const ADMIN: Actor = Object.freeze({ kind: 'admin' });
/** Anyone, acting as the admin because no admin token is configured (open mode). */
export const OPEN: Actor = Object.freeze({ kind: 'admin', open: true });

export const appActor = (app: string, keyId: string, retired = false): Actor =>
  retired ? { kind: 'app', app, keyId, retired } : { kind: 'app', app, keyId };

/** The actor as the audit log names it: `admin`, `open`, or the app key's id. */
export function actorName(actor: Actor): string {
  if (actor.kind === 'app') return actor.keyId;
  return actor.open ? 'open' : 'admin';
}

/**
 * Throws FORBIDDEN unless `actor` may act for `app`. The answer names only the caller's
 * own app: which app owns a timer is not told to other apps (tenant enumeration).
 */
export function assertCanUseApp(actor: Actor, app: string): void {
  if (actor.kind === 'app' && actor.app !== app) {
    throw new XtimerError(
      ErrorCode.FORBIDDEN,
      `this API key belongs to app ${actor.app}; it reaches only that app's timers, runs and app record`,
    );
  }
}

/**
 * Throws RETIRED_KEY for a key in its grace period: it keeps reading and firing the app's
 * timers while clients switch over, but may not take the app over (rotate, redirect its
 * failure reports) from the key that replaced it.
 */
export function assertNotRetired(actor: Actor, what: string): void {
  if (actor.kind === 'app' && actor.retired) {
    throw new XtimerError(
      ErrorCode.RETIRED_KEY,
      `this API key was replaced by a rotation and is in its grace period: it may read and fire timers, not ${what}; use the app's current key`,
    );
  }
}

/** Throws FORBIDDEN unless `actor` is the administrator. */
export function assertAdmin(actor: Actor): void {
  if (actor.kind !== 'admin') {
    throw new XtimerError(ErrorCode.FORBIDDEN, 'only the admin token may do this');
  }
}

/** What a key in its grace period may not do to a timer (RETIRED_KEY). */
export const SET_NOTIFY = 'set or change a notify URL';

/**
 * One caller's reach over the use cases: its actor (the access rule above), who the
 * audit log names for its changes (none: not audited), and the app's rate limit, spent
 * on every change an app key makes and on every preview and dry run, which evaluate
 * schedules and look up callback hosts as a change does (APP_RATE_LIMIT_PER_MINUTE; the
 * admin is not limited). A use case an actor may call takes one as its first argument.
 */
export class AccessScope {
  constructor(
    readonly actor: Actor,
    readonly author: ChangeAuthor | undefined,
    private readonly limiter?: RateLimiter | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** FORBIDDEN unless this actor may act for `app`. */
  useApp(app: string): void {
    assertCanUseApp(this.actor, app);
  }

  /** RETIRED_KEY for a key in its grace period. */
  notRetired(what: string): void {
    assertNotRetired(this.actor, what);
  }

  /**
   * The scope of a bulk action of `calls` changes: their calls of the rate limit spent at
   * once, before any is made (all or none), and nothing more spent through it.
   */
  async prepaid(calls: number): Promise<AccessScope> {
    await this.spend(calls);
    return new AccessScope(this.actor, this.author, undefined, this.now);
  }

  /** `calls` calls of the app's rate limit (RATE_LIMITED once it is spent). */
  async spend(calls = 1): Promise<void> {
    if (this.actor.kind !== 'app' || !this.limiter) return;
    const decision = await this.limiter.hit(this.actor.app, this.now(), calls);
    if (!decision.allowed) {
      throw new RateLimitedError(
        `app ${this.actor.app} made more changes, previews and dry runs this minute than APP_RATE_LIMIT_PER_MINUTE allows; retry in ${decision.retryAfterSec} s`,
        decision.retryAfterSec,
      );
    }
  }
}

/** xtimer's own calls (the dashboard's unsaved preview, tests' setup): the admin's reach, no limit, no audit entry. */
export const INTERNAL = new AccessScope(ADMIN, undefined);

/** A method taking an AccessScope first, as the caller sees it once the scope is bound; never for any other. */
type BoundMethod<F> = F extends (...args: infer P) => infer R
  ? P extends [AccessScope, ...infer A]
    ? (...args: A) => R
    : never
  : never;

/**
 * A concept's use cases as one caller may call them: its methods that take an AccessScope
 * first, without that argument. The rest (xtimer's own: sweeps, the executor's
 * completions) are not reachable through it.
 */
export type Scoped<T> = {
  readonly [K in keyof T as [BoundMethod<T[K]>] extends [never] ? never : K]: BoundMethod<T[K]>;
};

/**
 * `concept` with `scope` bound as the first argument of its use cases, so a new use case
 * (a method taking the scope) is reachable as soon as it is written, with no wrapper to keep.
 */
export function scoped<T extends object>(concept: T, scope: AccessScope): Scoped<T> {
  return new Proxy(concept, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key, target);
      if (typeof member !== 'function') return undefined;
      return (...args: unknown[]) => member.apply(target, [scope, ...args]);
    },
  }) as unknown as Scoped<T>;
}
