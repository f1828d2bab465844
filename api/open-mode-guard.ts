import type { Context, MiddlewareHandler } from 'hono';
import { ErrorCode, XtimerError } from '../src/errors.js';

/** Host names an open API always answers to: this machine's. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];
/** Methods that change nothing, which a page may send anywhere anyway. */
const SAFE_METHOD = /^(GET|HEAD|OPTIONS)$/;
/** Probes stay reachable by whatever name an orchestrator uses; they tell nothing. */
const PROBES = new Set(['/healthz', '/readyz']);
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

export interface OpenModeGuardOptions {
  /** Open mode: no XTIMER_ADMIN_TOKEN, so a request without a token acts as the admin. */
  open: boolean;
  /** PUBLIC_HOSTS: more Host names (or addresses) the open API answers to. */
  publicHosts: readonly string[];
}

/** The Host a request was sent to, as `host[:port]`, lower case. */
function hostOf(c: Context): string {
  return (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
}

/** `host[:port]` without the port, IPv6 brackets or a trailing dot; null if it is no host at all. */
function hostName(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  } catch {
    return null;
  }
}

/**
 * Why a browser is the likely sender of a request from another site, null if it is not.
 * `Sec-Fetch-Site`, which pages cannot set, decides when present: anything but
 * same-origin (or none, a typed URL) is refused — a page on another port of localhost is
 * same-site, and hostile. Browsers without it are judged by `Origin`: another origin, or
 * "null". Tools such as curl and SDKs send neither.
 */
function crossSite(c: Context): string | null {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined)
    return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site is ${site}`;
  const origin = c.req.header('origin');
  if (origin === undefined) return null;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    // "null" (a sandboxed or file: page) and anything unreadable are another origin.
  }
  return host === hostOf(c) ? null : `Origin ${origin} is not this API's`;
}

/**
 * Open mode's defence against the browser (docs/security.md). Without a token any local
 * web page could otherwise drive the API, so in open mode:
 *
 * - `Host` must be loopback or one of PUBLIC_HOSTS (421): a page whose DNS name is
 *   rebound to 127.0.0.1 sends its own name;
 * - a state-changing request without a token is refused (403) when `Origin` or
 *   `Sec-Fetch-Site` says it comes from another site;
 * - and on /api a body must be `content-type: application/json` (415), which no page can
 *   send to another origin without a CORS preflight xtimer never grants. A change with no
 *   body may omit it when it names no origin at all (curl, Python requests, Go's
 *   http.Post: every current browser sends Origin on a cross-site POST), and a DELETE
 *   without a body always may: no page can send a DELETE to another origin.
 *
 * A request carrying a token is checked as such (a page cannot attach one to another
 * origin), and with XTIMER_ADMIN_TOKEN set none of this applies: every call needs a token.
 */
export function openModeGuard({ open, publicHosts }: OpenModeGuardOptions): MiddlewareHandler {
  const allowed = new Set([...LOOPBACK_HOSTS, ...publicHosts]);
  return async (c, next) => {
    if (!open || PROBES.has(c.req.path)) return next();
    const name = hostName(hostOf(c));
    if (name === null || !allowed.has(name)) {
      throw new XtimerError(
        ErrorCode.HOST_NOT_ALLOWED,
        `this API has no admin token and answers only requests to localhost, 127.0.0.1, [::1] or PUBLIC_HOSTS, not to Host ${hostOf(c).slice(0, 256)}`,
      );
    }
    if (SAFE_METHOD.test(c.req.method) || c.req.header('authorization') !== undefined) return next();
    const why = crossSite(c);
    if (why !== null) {
      throw new XtimerError(
        ErrorCode.CROSS_SITE_REFUSED,
        `a request from another site may not change this API (${why.slice(0, 300)}); without an admin token only this machine's own tools may`,
      );
    }
    const hasBody =
      Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
    // A browser names where a request comes from; a tool names nothing, and then without a body
    // there is nothing for a content type to describe.
    const fromBrowser = c.req.header('origin') !== undefined || c.req.header('sec-fetch-site') !== undefined;
    const mustBeJson =
      c.req.path.startsWith('/api/') && (hasBody || (fromBrowser && c.req.method !== 'DELETE'));
    if (mustBeJson && !JSON_CONTENT_TYPE.test(c.req.header('content-type') ?? '')) {
      throw new XtimerError(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        hasBody
          ? 'send the body as content-type: application/json (without an admin token every change with a body must)'
          : 'send content-type: application/json (without an admin token a change from a web page must, an empty enable or disable too)',
      );
    }
    return next();
  };
}
