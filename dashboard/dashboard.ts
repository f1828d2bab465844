import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { statusOf, toXtimerError } from '../http/errors.js';
import type { Logger } from '../src/observability/logger.js';
import { tokensEqual } from '../src/security/api-keys.js';
import type { AuditService } from '../src/services/apps/audit-service.js';
import type { ServicePause } from '../src/services/apps/service-pause.js';
import { type Actor, ADMIN, OPEN } from '../src/services/timers/access.js';
import type { TimerService } from '../src/services/timers/timer-service.js';
import { type BoardQueues, createBoard } from './board.js';
import { csrfToken } from './csrf-token.js';
import { ASSETS_PATH, pageScriptRoutes } from './page-scripts.js';
import { auditPageRoutes } from './pages/audit-page.js';
import { runsPageRoutes } from './pages/runs-page.js';
import { timersPage } from './pages/timers-page.js';
import { servicePauseActions } from './service-pause-actions.js';
import type { BrakeView, DashboardEnv, DashboardPaths, ShellContext } from './views/layout.js';
import { errorPage } from './views/timer-views.js';

/** Where the dashboard is served: the console's pages and bull-board below it; the root leads to the timers. */
export const DASHBOARD_PATH = '/dashboard';
export const DASHBOARD_PATHS: DashboardPaths = {
  timers: `${DASHBOARD_PATH}/timers`,
  runs: `${DASHBOARD_PATH}/runs`,
  audit: `${DASHBOARD_PATH}/audit`,
  service: `${DASHBOARD_PATH}/service`,
  queues: `${DASHBOARD_PATH}/queues`,
  assets: `${DASHBOARD_PATH}${ASSETS_PATH}`,
};
/** The dashboard's forms: a create or edit carries a callback body of up to 64 KiB, form-encoded. */
const MAX_FORM_BYTES = 512 * 1024;

export interface BasicAuthCredentials {
  username: string;
  password: string;
}

export interface DashboardDeps {
  timers: TimerService;
  audit: AuditService;
  /** The emergency brake, in every page's header. */
  servicePause: ServicePause;
  /** CALLBACK_TIMEOUT_MS, for a timer created on the page that sets none. */
  callbackTimeoutMs: number;
  queues: BoardQueues;
  /** Basic auth over every dashboard path (DASHBOARD_USER / DASHBOARD_PASSWORD); null = none. */
  auth: BasicAuthCredentials | null;
  /**
   * Checks XTIMER_ADMIN_TOKEN (null: none configured). When set it is accepted as the
   * basic-auth password (any user name) or as a bearer token. Open only without either.
   */
  isAdminToken?: ((token: string) => boolean) | null | undefined;
  logger?: Logger | undefined;
  now?: (() => number) | undefined;
}

/**
 * The dashboard as its own app, answering full paths under /dashboard: the server-rendered
 * timers pages, and bull-board over the queues at /dashboard/queues. Not strict about
 * trailing slashes, because bull-board links to `/dashboard/queues/`; so the api app hands
 * it whole requests instead of merging its routes (a merged route would take the api's
 * strict matching).
 */
export function createDashboard(deps: DashboardDeps): Hono<DashboardEnv> {
  const paths = DASHBOARD_PATHS;
  const app = new Hono<DashboardEnv>({ strict: false });
  // Before the auth: where the console starts is no secret, and the timers page asks for credentials.
  app.get(DASHBOARD_PATH, (c) => c.redirect(paths.timers, 302));
  app.use('*', dashboardAuth(deps.auth, deps.isAdminToken ?? null));
  // The pages' forms change timers: a browser holding the dashboard's credentials (or any
  // browser, in open mode) must not be made to post them from another site. Both checks:
  // the request comes from this origin, and it carries the token this browser was given.
  for (const pages of [paths.timers, paths.runs, paths.audit, paths.service]) {
    // `/x/*` covers `/x` too.
    app.use(`${pages}/*`, csrf(), bodyLimit({ maxSize: MAX_FORM_BYTES }), csrfToken(DASHBOARD_PATH));
    // Every page's header shows the brake as MySQL has it (one primary-key read).
    app.use(`${pages}/*`, async (c, next) => {
      const url = new URL(c.req.url);
      c.set('brake', { pause: await deps.servicePause.get(), back: `${url.pathname}${url.search}` });
      await next();
    });
  }
  app.route(
    paths.timers,
    timersPage({
      timers: deps.timers,
      audit: deps.audit,
      paths,
      callbackTimeoutMs: deps.callbackTimeoutMs,
      now: deps.now ?? Date.now,
    }),
  );
  app.route(paths.runs, runsPageRoutes({ timers: deps.timers, paths }));
  app.route(paths.audit, auditPageRoutes({ audit: deps.audit, paths }));
  app.route(paths.assets, pageScriptRoutes());
  app.route(paths.service, servicePauseActions({ servicePause: deps.servicePause, paths }));
  app.use(paths.queues, withoutOtherHosts).use(`${paths.queues}/*`, withoutOtherHosts);
  app.route(paths.queues, createBoard(deps.queues, paths));
  app.notFound((c) => c.html(errorPage(404, `Nothing at ${c.req.path}.`, shellOf(c)), 404));
  app.onError((err, c) => {
    // Basic auth (401 + WWW-Authenticate) and CSRF (403) answer with their own response.
    if (err instanceof HTTPException) return err.getResponse();
    const e = toXtimerError(err, deps.logger);
    const status = statusOf(e.code);
    return c.html(errorPage(status, e.message, shellOf(c)), status);
  });
  return app;
}

/**
 * bull-board's page links web fonts from fonts.googleapis.com: the console must work where
 * only this host is reachable, and tell no other host who opens it. Its CSS falls back to
 * the system's fonts, so such links are dropped from its HTML.
 */
const OTHER_HOST_LINK = /<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>\s*/gi;

const withoutOtherHosts: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.get('content-type')?.startsWith('text/html')) return;
  const page = await c.res.text();
  c.res = new Response(page.replace(OTHER_HOST_LINK, ''), c.res);
  c.res.headers.delete('content-length');
};

/** An error page's header: with the brake when the request got as far as reading it. */
function shellOf(c: Context<DashboardEnv>): ShellContext {
  const csrf = c.get('csrf') as string | undefined;
  const brake = c.get('brake') as BrakeView | undefined;
  return {
    paths: DASHBOARD_PATHS,
    ...(csrf === undefined ? {} : { csrf }),
    ...(brake === undefined ? {} : { brake }),
  };
}

/**
 * Who may use the dashboard, and as whom its changes are made: DASHBOARD_USER/PASSWORD
 * by basic auth, or the admin token as basic-auth password or bearer token, act as the
 * admin; with neither configured it is open (open mode), and its changes are `open`'s.
 * Comparisons take the same time wherever the strings differ.
 */
function dashboardAuth(
  basic: BasicAuthCredentials | null,
  isAdminToken: ((token: string) => boolean) | null,
): MiddlewareHandler<{ Variables: { actor: Actor } }> {
  if (!basic && !isAdminToken) {
    return async (c, next) => {
      c.set('actor', OPEN);
      await next();
    };
  }
  const allowed = (header: string | undefined): boolean => {
    if (!header) return false;
    const bearer = /^Bearer +(\S+) *$/i.exec(header);
    if (bearer) return isAdminToken?.(bearer[1]!) ?? false;
    const encoded = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
    if (!encoded) return false;
    const decoded = Buffer.from(encoded[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (isAdminToken?.(password)) return true;
    if (!basic) return false;
    // Both compared, always: which one was wrong must not show in the time taken.
    const userOk = tokensEqual(user, basic.username);
    const passwordOk = tokensEqual(password, basic.password);
    return userOk && passwordOk;
  };
  return async (c, next) => {
    if (allowed(c.req.header('authorization'))) {
      c.set('actor', ADMIN);
      return next();
    }
    return c.text('Unauthorized', 401, {
      'www-authenticate': 'Basic realm="xtimer dashboard", charset="UTF-8"',
    });
  };
}
