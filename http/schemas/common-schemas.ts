import { z } from '@hono/zod-openapi';
import { LIMITS } from '../../src/domain/timer.js';
import type { ErrorCode } from '../../src/errors.js';

/**
 * The pieces every resource's schemas share: app names, ids, instants, query paging, the
 * error answer. An issue carrying `params.code` names its error code; http/errors.ts maps
 * the rest by field.
 */

export const withCode = (code: ErrorCode) => ({ params: { code } });

export const AppSchema = z
  .string()
  .regex(
    LIMITS.appPattern,
    'must be 1-64 letters, digits, dots, dashes or underscores, starting alphanumeric',
  )
  .openapi({ example: 'billing', description: 'The business system that owns the timer.' });

export const NO_CONTROL = /^[^\p{Cc}\p{Cs}]*$/u;

export const int = (min: number, max: number, what: string) =>
  z
    .number()
    .int(`${what} must be a whole number`)
    .min(min, `${what} must be >= ${min}`)
    .max(max, `${what} must be <= ${max}`);

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An instant in a request body: ISO-8601 with its offset (or Z), read as epoch ms. */
export const IsoInstantSchema = z
  .string()
  .regex(ISO_WITH_ZONE, 'must be an ISO-8601 time with its offset or Z, e.g. 2026-12-01T09:00:00Z')
  .transform((v, ctx) => {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: 'is not a valid time' });
      return z.NEVER;
    }
    return ms;
  })
  .openapi({ type: 'string', example: '2026-12-01T09:00:00Z' });

/** A positive integer id as written in a path or query string, read as a number. */
export const PositiveIdSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer id')
  .transform(Number);

/** A whole number in a query string: decimal digits only (no 0x10, 1e3, " 5", NaN or Infinity). */
export const queryInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback)
    .openapi({ type: 'integer', minimum: min, maximum: max, default: fallback });

export const LimitSchema = queryInt(1, 500, 50);
export const CursorSchema = z
  .string()
  .max(64)
  .optional()
  .openapi({ description: 'nextCursor of the previous page.' });

/** ISO-8601 or epoch milliseconds. */
export const InstantSchema = z
  .string()
  .transform((v, ctx) => {
    const ms = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO-8601 time or epoch milliseconds' });
      return z.NEVER;
    }
    return ms;
  })
  .openapi({ type: 'string', example: '2026-11-22T10:00:00Z' });

/** A query parameter that is `true` or `false` (absent: undefined), documented as a string. */
export function queryFlag(description: string) {
  return z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional()
    .openapi({ type: 'string', description });
}

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'INVALID_CRON' }),
      message: z.string(),
      details: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .openapi({ description: 'What exactly is wrong, by field; empty when the message says it all' }),
    }),
  })
  .openapi('Error');

export const page = <T extends z.ZodTypeAny>(item: T, name: string) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() }).openapi(name);
