import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Logger } from '../src/observability/logger.js';
import type { Metrics } from '../src/observability/metrics.js';
import { metricsRoutes } from './routes/metrics.js';

export interface HttpServer {
  port: number;
  close(): Promise<void>;
}

interface Fetchable {
  fetch: (request: Request, ...rest: never[]) => Response | Promise<Response>;
}

/** Serves a Hono app on a socket; resolves once listening. */
export function listen(
  app: Fetchable,
  host: string,
  port: number,
  logger: Logger,
  what = 'api',
): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    const onError = (err: Error) => reject(err);
    server = serve(
      { fetch: app.fetch as (r: Request) => Response | Promise<Response>, hostname: host, port },
      (info) => {
        server.off('error', onError);
        logger.info({ host, port: info.port }, `${what} listening`);
        resolve({
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              // Idle keep-alive sockets would hold close() open.
              (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
            }),
        });
      },
    );
    server.once('error', onError);
  });
}

/** For a process without the api role: just /metrics and /healthz. */
export function metricsOnlyApp(metrics: Metrics) {
  return new Hono().get('/healthz', (c) => c.json({ status: 'ok' })).route('/', metricsRoutes(metrics));
}
