import { createRoute, z } from '@hono/zod-openapi';
import type { Liveness } from '../../src/observability/liveness.js';
import { newRouter } from '../router.js';

/** A dependency readiness depends on; rejects (or times out) when it is not usable. */
export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 1500;

async function run(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return 'ok';
  } catch (err) {
    return `down: ${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

const HealthSchema = z.object({ status: z.string(), checks: z.record(z.string(), z.string()).optional() });

const liveness = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['health'],
  summary: 'Liveness: the process answers, and its roles thread beats',
  description:
    'Never asks Redis or MySQL (an outage of theirs is no reason to restart): 503 only when a thread of the process has been silent for 60 s, a wedged loop that only a restart ends.',
  responses: {
    200: { content: { 'application/json': { schema: HealthSchema } }, description: 'Alive' },
    503: { content: { 'application/json': { schema: HealthSchema } }, description: 'A thread is wedged' },
  },
});

const readiness = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['health'],
  summary: 'Readiness: Redis and MySQL take writes',
  responses: {
    200: { content: { 'application/json': { schema: HealthSchema } }, description: 'Ready' },
    503: { content: { 'application/json': { schema: HealthSchema } }, description: 'A dependency is down' },
  },
});

export function healthRoutes(checks: Record<string, ReadinessCheck>, threads?: Pick<Liveness, 'report'>) {
  return newRouter()
    .openapi(liveness, (c) => {
      const report = threads?.report();
      if (!report || Object.keys(report.checks).length === 0) return c.json({ status: 'ok' }, 200);
      return report.alive
        ? c.json({ status: 'ok', checks: report.checks }, 200)
        : c.json({ status: 'stalled', checks: report.checks }, 503);
    })
    .openapi(readiness, async (c) => {
      const names = Object.keys(checks);
      const results = await Promise.all(names.map((n) => run(checks[n]!)));
      const report = Object.fromEntries(names.map((n, i) => [n, results[i]!]));
      const ready = results.every((r) => r === 'ok');
      return ready
        ? c.json({ status: 'ready', checks: report }, 200)
        : c.json({ status: 'unready', checks: report }, 503);
    });
}
