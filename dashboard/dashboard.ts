import { Hono } from 'hono';
import { basicAuth } from 'hono/basic-auth';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { statusOf, toXtimerError } from '../api/errors.js';
import type { Logger } from '../src/observability/logger.js';
import type { TimerService } from '../src/services/timer-service.js';
import { type BoardQueues, createBoard } from './board.js';
import type { DashboardPaths } from './layout.js';
import { errorPage } from './timer-views.js';
import { timersPage } from './timers-page.js';

/** Where the dashboard is served: the board at the root, the timers page below it. */
export const DASHBOARD_PATH = '/dashboard';
export const DASHBOARD_PATHS: DashboardPaths = { board: DASHBOARD_PATH, timers: `${DASHBOARD_PATH}/timers` };

export interface BasicAuthCredentials {
  username: string;
  password: string;
}

export interface DashboardDeps {
  timers: TimerService;
  queues: BoardQueues;
  /** Basic auth over every dashboard path (DASHBOARD_USER / DASHBOARD_PASSWORD); null = open. */
  auth: BasicAuthCredentials | null;
  logger?: Logger | undefined;
  now?: (() => number) | undefined;
}

/**
 * The dashboard as its own app, answering full paths under /dashboard: bull-board over
 * the queues and the server-rendered timers page. Not strict about trailing slashes,
 * because bull-board links to `/dashboard/`; so the api app hands it whole requests
 * instead of merging its routes (a merged route would take the api's strict matching).
 */
export function createDashboard(deps: DashboardDeps): Hono {
  const paths = DASHBOARD_PATHS;
  const app = new Hono({ strict: false });
  if (deps.auth) {
    app.use('*', basicAuth({ ...deps.auth, realm: 'xtimer dashboard' }));
  }
  // The enable/disable forms: a browser holding basic-auth credentials must not be made
  // to post them from another site.
  app.use(`${paths.timers}/*`, csrf(), bodyLimit({ maxSize: 16 * 1024 }));
  app.route(paths.timers, timersPage({ timers: deps.timers, paths, now: deps.now ?? Date.now }));
  app.route(paths.board, createBoard(deps.queues, paths.board, paths.timers));
  app.notFound((c) => c.html(errorPage(404, `Nothing at ${c.req.path}.`, paths), 404));
  app.onError((err, c) => {
    // Basic auth (401 + WWW-Authenticate) and CSRF (403) answer with their own response.
    if (err instanceof HTTPException) return err.getResponse();
    const e = toXtimerError(err, deps.logger);
    const status = statusOf(e.code);
    return c.html(errorPage(status, e.message, paths), status);
  });
  return app;
}
