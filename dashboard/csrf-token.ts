import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { ErrorCode, XtimerError } from '../src/errors.js';
import { tokensEqual } from '../src/security/api-keys.js';

/** The form field and the cookie that must carry the same token. */
export const CSRF_FIELD = 'csrf';
const COOKIE = 'xtimer_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type CsrfEnv = { Variables: { csrf: string } };

/**
 * The dashboard's CSRF token (double-submit): each browser gets a random token in a
 * `SameSite=Strict`, `HttpOnly` cookie, and every form the pages render carries it in a
 * hidden field. A change is accepted only when the two agree. A page of another site
 * can neither read the cookie nor the pages, and a strict cookie is not even sent with
 * its requests. This stands beside the same-origin check (Origin / Sec-Fetch-Site), so
 * a same-site page (another port of localhost, which may set cookies here) still needs
 * both. `path` is where the cookie is sent: the dashboard's pages.
 */
export function csrfToken(path: string): MiddlewareHandler<CsrfEnv> {
  return async (c, next) => {
    const cookie = getCookie(c, COOKIE);
    const known = cookie !== undefined && TOKEN.test(cookie) ? cookie : undefined;
    if (!/^(GET|HEAD|OPTIONS)$/.test(c.req.method)) {
      const form = await c.req.parseBody().catch(() => {
        // A malformed multipart or urlencoded body is the sender's fault, not a 500.
        throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'the form body cannot be read');
      });
      const sent = form[CSRF_FIELD];
      if (known === undefined || typeof sent !== 'string' || !tokensEqual(sent, known)) {
        throw new XtimerError(
          ErrorCode.CROSS_SITE_REFUSED,
          'this form is not one of this dashboard’s pages (its token is missing or stale): reload the page and try again',
        );
      }
    }
    const token = known ?? randomBytes(32).toString('base64url');
    if (known === undefined) {
      setCookie(c, COOKIE, token, { path, httpOnly: true, sameSite: 'Strict' });
    }
    c.set('csrf', token);
    await next();
  };
}
