import type { IncomingMessage } from 'node:http';
import { type HttpBindings, type ServerType, serve } from '@hono/node-server';
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

/** Did the answer leave part of the request body unread (a 413, a 401, any early error)? */
function bodyLeftUnread(incoming: IncomingMessage): boolean {
  const hasBody =
    Number(incoming.headers['content-length'] ?? 0) > 0 ||
    incoming.headers['transfer-encoding'] !== undefined;
  return hasBody && !incoming.readableEnded;
}

/**
 * An answer given before the request body was read closes the connection, and says so
 * (`Connection: close`): the unread rest cannot be drained reliably (the node adapter gives
 * up after 500 ms and drops the socket), and a keep-alive client told nothing would send
 * its next request into a closed connection.
 */
function closingUnreadRequests(app: Fetchable) {
  const fetch = app.fetch as (request: Request, env: HttpBindings) => Response | Promise<Response>;
  return async (request: Request, env: HttpBindings): Promise<Response> => {
    const response = await fetch(request, env);
    if (!bodyLeftUnread(env.incoming)) return response;
    const closing = new Response(response.body, response);
    closing.headers.set('connection', 'close');
    return closing;
  };
}

/** Serves a Hono app on a socket; resolves once listening. */
export function listen(
  app: Fetchable,
  host: string,
  port: number,
  logger: Logger,
  what = 'api',
  /** Pages to name in the line that says it listens, by their paths (the console's). */
  pages: Record<string, string> = {},
): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    const onError = (err: Error) => reject(err);
    server = serve(
      { fetch: closingUnreadRequests(app) as (r: Request) => Promise<Response>, hostname: host, port },
      (info) => {
        server.off('error', onError);
        const base = `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`;
        const urls = Object.fromEntries(
          Object.entries(pages).map(([name, path]) => [name, `${base}${path}`]),
        );
        logger.info({ host, port: info.port, ...urls }, `${what} listening`);
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
