import type { MiddlewareHandler } from 'hono';
import { ErrorCode, XtimerError } from '../src/errors.js';
import type { AppService } from '../src/services/apps/app-service.js';
import type { Actor } from '../src/services/timers/access.js';
import { respondErrorByPath } from './routes/compat-xtimer-envelope.js';

/** What the API routes find on the context: who is calling. */
export type ApiEnv = { Variables: { actor: Actor } };

/** The OpenAPI security scheme every /api route declares. */
export const BEARER_SCHEME = 'bearerAuth';
export const secured = { security: [{ [BEARER_SCHEME]: [] }] };

/**
 * The one authentication check (docs/security.md): every /api request names its actor
 * with `Authorization: Bearer <admin token | app API key>`; without a valid one it is
 * answered 401 (in the compat envelope on compat paths). In open mode (no
 * XTIMER_ADMIN_TOKEN) a request without the header acts as the admin. What an actor
 * may then do is decided by the services (src/services/timers/access.ts).
 */
export function authenticate(apps: AppService): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const actor = await apps.authenticate(header);
    if (!actor) {
      const err = new XtimerError(
        ErrorCode.UNAUTHORIZED,
        header === undefined
          ? 'send Authorization: Bearer <admin token or app API key>'
          : 'the bearer token is neither the admin token nor a valid app API key',
      );
      return respondErrorByPath(c, err);
    }
    c.set('actor', actor);
    await next();
  };
}
