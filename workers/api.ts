import { createApp } from '../api/app.js';
import { listen, metricsOnlyApp } from '../api/server.js';
import { createDashboard, DASHBOARD_PATH } from '../dashboard/dashboard.js';
import { isLoopbackHost } from '../src/config.js';
import type { Core } from '../src/core.js';
import { collectClusterGauges } from '../src/observability/cluster-gauges.js';
import { readinessChecks } from '../src/observability/readiness.js';
import type { RunningRole } from './running-role.js';

/**
 * The api role: the HTTP API on HOST:PORT, with the dashboard it mounts under /dashboard
 * (built here: api/ and dashboard/ do not import each other) and the cluster's gauges.
 */
export async function startApi(core: Core): Promise<RunningRole> {
  const { config, logger, database, redis } = core;
  if (config.adminToken === undefined) {
    logger.warn(
      { host: config.host, insecure: !isLoopbackHost(config.host) },
      isLoopbackHost(config.host)
        ? 'the API is open: no XTIMER_ADMIN_TOKEN is set (only this machine can reach it)'
        : 'the API is open to the network: no XTIMER_ADMIN_TOKEN is set and XTIMER_INSECURE=1 allows it',
    );
  }
  const apiLogger = logger.child({ component: 'api' });
  // Served by the api app under /dashboard, after its browser headers and open-mode guard.
  const dashboard = createDashboard({
    timers: core.timers,
    audit: core.audit,
    servicePause: core.servicePause,
    callbackTimeoutMs: config.callbackTimeoutMs,
    queues: core.queues,
    auth:
      config.dashboardUser && config.dashboardPassword
        ? { username: config.dashboardUser, password: config.dashboardPassword }
        : null,
    isAdminToken: core.apps.adminTokenCheck,
    logger: apiLogger,
  });
  const app = createApp({
    timers: core.timers,
    apps: core.apps,
    audit: core.audit,
    servicePause: core.servicePause,
    callbackTimeoutMs: config.callbackTimeoutMs,
    logger: apiLogger,
    dashboard: { path: DASHBOARD_PATH, app: dashboard },
    readiness: readinessChecks(redis, database.pool, core.keys.readinessProbe()),
    liveness: core.liveness,
    metrics: core.metrics,
    publicHosts: config.publicHosts,
    foreground: core.foreground,
  });
  const api = await listen(app, config.host, config.port, logger, 'api', { console: DASHBOARD_PATH });
  collectClusterGauges(core);
  return { close: () => api.close() };
}

/** Without the api role, the metrics alone on METRICS_PORT. */
export async function startMetricsOnly(core: Core, port: number): Promise<RunningRole> {
  const server = await listen(metricsOnlyApp(core.metrics), core.config.host, port, core.logger, 'metrics');
  return { close: () => server.close() };
}
