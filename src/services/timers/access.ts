import { ErrorCode, XtimerError } from '../../errors.js';

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
