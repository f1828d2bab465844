import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamedBodyLimit } from 'hono/body-limit';

/** Methods whose body @hono/node-server never reads (it sends a TRACE on as a GET). */
const WITHOUT_BODY = /^(GET|HEAD|TRACE)$/;

/**
 * Refuses a request body over `maxSize` bytes with `onError`'s answer.
 *
 * A body whose length is declared (Content-Length without Transfer-Encoding) is judged by
 * that header alone, as Hono's bodyLimit does. Unlike it, this never touches
 * `c.req.raw.body` for such a body: reading that property turns @hono/node-server's
 * lightweight request into a web Request with a stream, and the body is then read through
 * web streams instead of node-server's direct read (~0.1 ms of CPU a request). A chunked
 * body, or a request built in a test without the header, goes through Hono's bodyLimit,
 * which counts the bytes as they come.
 */
export function bodyLimit(options: {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}): MiddlewareHandler {
  const streamed = streamedBodyLimit(options);
  return async (c, next) => {
    if (WITHOUT_BODY.test(c.req.method)) return next();
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    if (Number.parseInt(declared, 10) > options.maxSize) return options.onError(c);
    return next();
  };
}
