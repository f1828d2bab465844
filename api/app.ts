import type { Context, MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { ErrorCode, XtimerError } from '../src/errors.js';
import type { Liveness } from '../src/observability/liveness.js';
import type { Logger } from '../src/observability/logger.js';
import type { Metrics } from '../src/observability/metrics.js';
import type { AppService } from '../src/services/apps/app-service.js';
import type { AuditService } from '../src/services/apps/audit-service.js';
import type { ServicePause } from '../src/services/apps/service-pause.js';
import type { Foreground } from '../src/services/firing/admission/foreground.js';
import type { TimerService } from '../src/services/timers/timer-service.js';
import { type ApiEnv, authenticate, BEARER_SCHEME } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { openModeGuard } from './open-mode-guard.js';
import { newRouter } from './router.js';
import { appTimerRoutes } from './routes/app-timers.js';
import { appRoutes } from './routes/apps.js';
import { auditRoutes } from './routes/audit.js';
import { compatRoutes } from './routes/compat-xtimer.js';
import { respondErrorByPath } from './routes/compat-xtimer-envelope.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes, type ReadinessCheck } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { pauseRoutes } from './routes/pause.js';
import { timerSelectionRoutes } from './routes/timer-selection.js';
import { timerRoutes } from './routes/timers.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** An apply carries an app's whole set of timers (up to 5,000). */
export const MAX_APPLY_BODY_BYTES = 16 * 1024 * 1024;
const APPLY_PATH = /^\/api\/v1\/apps\/[^/]+\/apply$/;

export interface AppDeps {
  timers: TimerService;
  /** Apps and who a bearer token is: every /api request is authenticated through it. */
  apps: AppService;
  /** The audit log, read at GET /api/v1/audit and on the dashboard. */
  audit: AuditService;
  /** The emergency brake: POST /api/v1/pause and /resume (the admin's). */
  servicePause: ServicePause;
  readiness: Record<string, ReadinessCheck>;
  /** The threads /healthz watches beating; absent: none, alive while it answers. */
  liveness?: Pick<Liveness, 'report'> | undefined;
  callbackTimeoutMs: number;
  logger: Logger;
  /**
   * The dashboard (the queues board and the timers, runs and audit pages), built by the
   * caller (`createDashboard`) and served at its path and every path below it; left out
   * when absent.
   */
  dashboard?: MountedApp | undefined;
  /** This process's metrics at /metrics; left out when absent. */
  metrics?: Metrics | undefined;
  /** PUBLIC_HOSTS: Host names an open-mode API answers to besides loopback (default none). */
  publicHosts?: readonly string[] | undefined;
  /** Counts the requests being answered, for an executor in the same process to yield to. */
  foreground?: Foreground | undefined;
}

/**
 * An app of its own served under `path` (and every path below it): it is handed whole
 * requests, with their full paths, and answers them itself. The middleware set on '*' here
 * (browser headers, the line-break refusal, the open-mode guard) runs first; /api's
 * authentication does not.
 */
export interface MountedApp {
  path: string;
  app: { fetch: (request: Request, env: unknown) => Response | Promise<Response> };
}

/**
 * Headers every answer carries for browsers (docs/security.md): the dashboard and /docs
 * may not be framed (clickjacking), run only scripts served from here (no inline script,
 * so markup slipped into a page runs nothing), nothing is sniffed into another type, no
 * Referer leaks a page's query to another site (same-origin: the dashboard's own form
 * posts keep their Origin, which no-referrer would turn to "null"), other origins may not
 * embed the answers. HSTS is the TLS proxy's call.
 */
const browserHeaders = secureHeaders({
  contentSecurityPolicy: {
    scriptSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    objectSrc: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'same-origin',
  strictTransportSecurity: false,
});

/**
 * A query parameter holding a line break is refused (400): no parameter needs one, and
 * one copied into a header (a redirect's Location) would split it.
 */
const refuseLineBreaksInQuery: MiddlewareHandler = async (c, next) => {
  const at = c.req.url.indexOf('?');
  const query = at < 0 ? '' : c.req.url.slice(at + 1);
  if (/%0[ad]|[\r\n]/i.test(query)) {
    throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'query parameters must not contain CR or LF');
  }
  await next();
};

/**
 * A JSON body naming a key `__proto__` is refused (400): the schemas would drop such a
 * key without a word, so a label or header of that name would vanish from a 201.
 */
const refuseProtoKeys: MiddlewareHandler = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.header('content-type')?.includes('json')) {
    const text = await c.req.text();
    // A key can spell it with escapes, so any escape gets the careful read.
    if (text.includes('__proto__') || text.includes('\\u')) {
      let named = false;
      try {
        JSON.parse(text, (key, value) => {
          if (key === '__proto__') named = true;
          return value;
        });
      } catch {
        // Not JSON: the route's own parse says so.
      }
      if (named) {
        throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'request body must not name a key __proto__', [
          { path: 'body', message: '__proto__ is not a name a label, header or field may have' },
        ]);
      }
    }
  }
  await next();
};

/** The HTTP application, pure: tests drive it with app.request(), no socket needed. */
export function createApp(deps: AppDeps) {
  const app = newRouter<ApiEnv>();
  app.use('*', browserHeaders, refuseLineBreaksInQuery);
  app.use('*', openModeGuard({ open: deps.apps.open, publicHosts: deps.publicHosts ?? [] }));
  // Who is calling, before anything else is read (docs/security.md).
  app.use('/api/*', authenticate(deps.apps));
  // What an executor in this process yields to: an operator's API calls, once
  // authenticated, and the console; not probes and scrapes, nor callers turned away.
  const { foreground } = deps;
  if (foreground) {
    const counted: MiddlewareHandler = (_c, next) => foreground.serve(next);
    app.use('/api/*', counted);
    if (deps.dashboard) app.use(deps.dashboard.path, counted).use(`${deps.dashboard.path}/*`, counted);
  }
  const limitOf = (maxSize: number, what: string) =>
    bodyLimit({
      maxSize,
      onError: (c) =>
        respondErrorByPath(
          c,
          new XtimerError(ErrorCode.PAYLOAD_TOO_LARGE, `request body is larger than ${what}`),
        ),
    });
  const bodyLimits = {
    usual: limitOf(MAX_BODY_BYTES, '1 MiB'),
    apply: limitOf(MAX_APPLY_BODY_BYTES, '16 MiB'),
  };
  app.use('/api/*', (c, next) =>
    (APPLY_PATH.test(c.req.path) ? bodyLimits.apply : bodyLimits.usual)(c, next),
  );
  app.use('/api/*', refuseProtoKeys);
  app.route('/', healthRoutes(deps.readiness, deps.liveness));
  app.route('/api/v1', timerSelectionRoutes({ timers: deps.timers }));
  app.route('/api/v1', timerRoutes({ timers: deps.timers, callbackTimeoutMs: deps.callbackTimeoutMs }));
  app.route('/api/v1', appRoutes(deps.apps));
  app.route('/api/v1', appTimerRoutes({ timers: deps.timers, callbackTimeoutMs: deps.callbackTimeoutMs }));
  app.route('/api/v1', auditRoutes(deps.audit));
  app.route('/api/v1', pauseRoutes(deps.servicePause));
  app.route(
    '/',
    compatRoutes({
      timers: deps.timers,
      callbackTimeoutMs: deps.callbackTimeoutMs,
      logger: deps.logger,
    }),
  );
  app.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description:
      'XTIMER_ADMIN_TOKEN (everything) or an app API key (that app only). Optional in open mode (no admin token configured).',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'xtimer',
      version: '1',
      description:
        'Distributed timers: a cron expression plus an HTTP callback, fired on time, once in effect.',
    },
  });
  app.route('/', docsRoutes());
  if (deps.metrics) app.route('/', metricsRoutes(deps.metrics));
  if (deps.dashboard) {
    const { path, app: dashboard } = deps.dashboard;
    // Whole requests, not merged routes: the dashboard matches paths its own (non-strict) way.
    const toDashboard = (c: Context) => dashboard.fetch(c.req.raw, c.env);
    app.all(path, toDashboard);
    app.all(`${path}/*`, toDashboard);
    // The console is the home page: a person who opens the service's address lands there.
    app.get('/', (c) => c.redirect(`${path}/timers`, 302));
  }
  app.notFound((c) =>
    respondErrorByPath(c, new XtimerError(ErrorCode.NOT_FOUND, `no route for ${c.req.method} ${c.req.path}`)),
  );
  app.onError((err, c) => respondErrorByPath(c, err, deps.logger));
  return app;
}

export type App = ReturnType<typeof createApp>;
