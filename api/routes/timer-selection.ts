import { randomUUID } from 'node:crypto';
import { createRoute, type z } from '@hono/zod-openapi';
import { ErrorSchema } from '../../http/schemas/common-schemas.js';
import { BulkActionSchema, BulkResultSchema } from '../../http/schemas/timer-schemas.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { type ApiEnv, secured } from '../auth.js';
import { newRouter } from '../router.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

const bulk = createRoute({
  method: 'post',
  path: '/timers/bulk',
  tags: ['timers'],
  ...secured,
  summary: 'Pause, resume or run now many timers at once: one audited batch',
  description:
    'Each timer goes through the same change as on its own (disable with the note and until, enable, trigger), each audited under one batchId. A pause or resume counts once against the rate limit; a run now, once per run.',
  request: { body: { content: { 'application/json': { schema: BulkActionSchema } }, required: true } },
  responses: {
    200: json(BulkResultSchema, 'How many it changed, and the batch'),
    400: json(ErrorSchema, 'No ids, more than 1,000, or an until in the past'),
    401: json(ErrorSchema, 'No valid bearer token'),
    403: json(ErrorSchema, "Another app's timer among them (nothing changed)"),
    404: json(ErrorSchema, 'A timer among them does not exist (nothing changed)'),
    429: json(ErrorSchema, 'Rate limit of the app key reached (see Retry-After)'),
  },
});

/** Bulk actions over a selection of timers (the console's "Pause selected" and the CLI's `timers bulk`). */
export function timerSelectionRoutes({ timers }: { timers: TimerService }) {
  return newRouter<ApiEnv>().openapi(bulk, async (c) => {
    const { action, ids, note, until } = c.req.valid('json');
    const batchId = randomUUID();
    const result = await timers.as(c.var.actor, { batchId }).selection.apply({
      action,
      ids,
      pause: { note, until },
    });
    return c.json(result, 200);
  });
}
