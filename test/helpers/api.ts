import { type App, createApp } from '../../api/app.js';
import { type BasicAuthCredentials, createDashboard, DASHBOARD_PATH } from '../../dashboard/dashboard.js';
import type { Core } from '../../src/core.js';
import { createLogger } from '../../src/observability/logger.js';
import { readinessChecks } from '../../src/observability/readiness.js';

/**
 * The HTTP app over a test's core, driven with app.request() (no socket), with the
 * dashboard at /dashboard as workers/api.ts mounts it.
 */
export function createTestApp(
  core: Core,
  options: { dashboardAuth?: BasicAuthCredentials | null } = {},
): App {
  const logger = createLogger('silent');
  const dashboard = createDashboard({
    timers: core.timers,
    audit: core.audit,
    servicePause: core.servicePause,
    callbackTimeoutMs: core.config.callbackTimeoutMs,
    queues: core.queues,
    auth: options.dashboardAuth ?? null,
    isAdminToken: core.apps.adminTokenCheck,
    logger,
  });
  return createApp({
    timers: core.timers,
    apps: core.apps,
    audit: core.audit,
    servicePause: core.servicePause,
    callbackTimeoutMs: core.config.callbackTimeoutMs,
    logger,
    dashboard: { path: DASHBOARD_PATH, app: dashboard },
    publicHosts: core.config.publicHosts,
    foreground: core.foreground,
    readiness: readinessChecks(core.redis, core.database.pool, core.keys.readinessProbe()),
    liveness: core.liveness,
  });
}

/**
 * JSON request helper, a client as an SDK is: every change says content-type:
 * application/json (open mode requires it of a body). Returns status and parsed body.
 */
export async function call(
  app: App,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  if (body !== undefined || (method !== 'GET' && method !== 'HEAD')) {
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await app.request(path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: leave the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A valid create body; override what a test cares about. */
export function timerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    app: 'billing',
    name: `t-${Math.random().toString(36).slice(2, 10)}`,
    cron: '0 30 2 * * *',
    timezone: 'Asia/Shanghai',
    callback: {
      url: 'http://127.0.0.1:9/hooks/run',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"k":1}',
      timeoutMs: 5000,
    },
    ...overrides,
  };
}
