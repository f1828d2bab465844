import { Hono } from 'hono';
import type { Metrics } from '../../src/observability/metrics.js';

/** Prometheus text exposition of this process's metrics. */
export function metricsRoutes(metrics: Metrics) {
  return new Hono().get('/metrics', async (c) => {
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType });
  });
}
