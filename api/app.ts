import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createDashboard, DASHBOARD_PATH, type DashboardDeps } from '../dashboard/dashboard.js';
import { ErrorCode, XtimerError } from '../src/errors.js';
import type { Logger } from '../src/observability/logger.js';
import type { Metrics } from '../src/observability/metrics.js';
import type { AppService } from '../src/services/app-service.js';
import type { TimerService } from '../src/services/timer-service.js';
import { type ApiEnv, authenticate, BEARER_SCHEME } from './auth.js';
import { respondError } from './errors.js';
import { newRouter } from './router.js';
import { appRoutes } from './routes/apps.js';
import { COMPAT_PATH, compatRoutes, respondCompatError } from './routes/compat-xtimer.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes, type ReadinessCheck } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { timerRoutes } from './routes/timers.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppDeps {
  timers: TimerService;
  /** Apps and who a bearer token is: every /api request is authenticated through it. */
  apps: AppService;
  readiness: Record<string, ReadinessCheck>;
  callbackTimeoutMs: number;
  logger: Logger;
  /** The queues board and timers page at /dashboard; left out when absent. */
  dashboard?: Pick<DashboardDeps, 'queues' | 'auth'> | undefined;
  /** This process's metrics at /metrics; left out when absent. */
  metrics?: Metrics | undefined;
}

/** The HTTP application, pure: tests drive it with app.request(), no socket needed. */
export function createApp(deps: AppDeps) {
  const app = newRouter<ApiEnv>();
  // Who is calling, before anything else is read (README "Security").
  app.use('/api/*', authenticate(deps.apps));
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => {
        const err = new XtimerError(ErrorCode.PAYLOAD_TOO_LARGE, 'request body is larger than 1 MiB');
        return COMPAT_PATH.test(c.req.path) ? respondCompatError(c, err) : respondError(c, err);
      },
    }),
  );
  app.route('/', healthRoutes(deps.readiness));
  app.route('/api/v1', timerRoutes({ timers: deps.timers, callbackTimeoutMs: deps.callbackTimeoutMs }));
  app.route('/api/v1', appRoutes(deps.apps));
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
    const dashboard = createDashboard({
      ...deps.dashboard,
      timers: deps.timers,
      logger: deps.logger,
      isAdminToken: deps.apps.adminTokenCheck,
    });
    // Whole requests, not merged routes: the dashboard matches paths its own (non-strict) way.
    const toDashboard = (c: Context) => dashboard.fetch(c.req.raw, c.env);
    app.all(DASHBOARD_PATH, toDashboard);
    app.all(`${DASHBOARD_PATH}/*`, toDashboard);
  }
  app.notFound((c) => {
    const err = new XtimerError(ErrorCode.NOT_FOUND, `no route for ${c.req.method} ${c.req.path}`);
    return COMPAT_PATH.test(c.req.path) ? respondCompatError(c, err) : respondError(c, err);
  });
  app.onError((err, c) => respondError(c, err, deps.logger));
  return app;
}

export type App = ReturnType<typeof createApp>;
