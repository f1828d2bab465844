import { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { fromZodError, respondError } from '../http/errors.js';

/**
 * A router whose request validation failures answer with the error envelope. Every
 * native route file builds on this, so they all report bad input the same way.
 */
export function newRouter<E extends Env = Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result, c) => {
      if (!result.success) return respondError(c, fromZodError(result.error, result.target));
      return undefined;
    },
  });
}
