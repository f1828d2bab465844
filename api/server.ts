import { type ServerType, serve } from '@hono/node-server';
import type { Logger } from '../src/observability/logger.js';
import { type AppDeps, createApp } from './app.js';

export interface ApiServer {
  port: number;
  close(): Promise<void>;
}

/** The api role: the HTTP app on a socket. Resolves once listening. */
export function startApiServer(
  deps: AppDeps,
  host: string,
  port: number,
  logger: Logger,
): Promise<ApiServer> {
  const app = createApp(deps);
  return new Promise((resolve, reject) => {
    let server: ServerType;
    const onError = (err: Error) => reject(err);
    server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
      server.off('error', onError);
      logger.info({ host, port: info.port }, 'api listening');
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Idle keep-alive sockets would hold close() open.
            (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          }),
      });
    });
    server.once('error', onError);
  });
}
