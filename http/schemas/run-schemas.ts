import { z } from '@hono/zod-openapi';
import { RUN_TRIGGERS, TASK_STATUSES } from '../../src/domain/timer.js';
import { CursorSchema, InstantSchema, LimitSchema, queryFlag } from './common-schemas.js';
import { IdParamSchema } from './timer-schemas.js';

/** A timer's runs (tasks): as listed, and as a run now or a retry answers them. */

export const TaskSchema = z
  .object({
    id: z.string().openapi({ example: '42_1795304060000', description: 'The task key: timerId_runAtMs.' }),
    timerId: z.number().int(),
    runAt: z.string().openapi({ example: '2026-11-22T10:00:00.000Z' }),
    status: z.enum(TASK_STATUSES),
    trigger: z
      .enum(RUN_TRIGGERS)
      .openapi({ description: 'What made the run: its schedule, a run now, a retry, or a backfill.' }),
    attempts: z.number().int(),
    httpStatus: z.number().int().nullable(),
    output: z.string().nullable(),
    error: z.string().nullable(),
    firedAt: z.string().nullable().openapi({ description: 'When the latest attempt was sent.' }),
    firstFiredAt: z.string().nullable().openapi({ description: 'When the first attempt was sent.' }),
    latencyMs: z.number().int().nullable().openapi({
      description:
        "How late the first call left: firstFiredAt − runAt; null if never called, and for a backfill's runs (past by design).",
    }),
    sinceBackfillStartMs: z.number().int().nullable().openapi({
      description:
        "For a backfill's run: how long after the backfill began its first call left (in place of latencyMs); null for any other run.",
    }),
    durationMs: z.number().int().nullable(),
  })
  .openapi('Task');

export const TaskIdParamSchema = IdParamSchema.extend({
  taskId: z
    .string()
    .regex(/^[1-9][0-9]{0,14}_[0-9]{1,15}$/, 'must be a task id: timerId_runAtMs')
    .openapi({ param: { name: 'taskId', in: 'path' }, example: '42_1795304060000' }),
});

export const QueuedRunSchema = z
  .object({
    id: z.string().openapi({ example: '42_1795304060000' }),
    timerId: z.number().int(),
    runAt: z.string(),
    status: z.literal('pending'),
    trigger: z.enum(['manual', 'retry']),
  })
  .openapi('QueuedRun');

export const ListTasksQuerySchema = z.strictObject({
  status: z
    .string()
    .transform((v, ctx) => {
      const list = v.split(',').filter(Boolean);
      const bad = list.filter((s) => !(TASK_STATUSES as readonly string[]).includes(s));
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown status ${bad.join(', ')}; use ${TASK_STATUSES.join(', ')}`,
        });
        return z.NEVER;
      }
      return list as (typeof TASK_STATUSES)[number][];
    })
    .optional()
    .openapi({ type: 'string', example: 'succeeded,failed', description: 'Comma list of statuses.' }),
  from: InstantSchema.optional(),
  to: InstantSchema.optional(),
  upcoming: queryFlag(
    'true: the pending runs still to come, soonest first. Otherwise (default) history: runs at or before now, newest first.',
  ),
  limit: LimitSchema,
  cursor: CursorSchema,
});

/**
 * One attempt's answer, as a run keeps it (ANSWER_LIMITS, src/domain/attempt-answers.ts).
 * Not a named component: a nullable reference (`latest`) would type as never in the client.
 */
export const AttemptAnswerSchema = z.object({
  attempt: z.number().int(),
  sentAt: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  headers: z
    .record(z.string(), z.string())
    .nullable()
    .openapi({
      description:
        'The response headers kept: 512 bytes of names and values at most, each value cut at 128 characters, connection headers left out, credential values (set-cookie, tokens, signatures) as ***. null: none kept (no response, or a run from before headers were kept).',
      example: { 'content-type': 'text/plain', 'x-request-id': 'r-7', 'set-cookie': '***' },
    }),
  output: z
    .string()
    .nullable()
    .openapi({ description: 'The start of the response body, as kept (1,024 characters at most).' }),
  outputBytes: z
    .number()
    .int()
    .openapi({ description: 'The size of what is kept of the body, in UTF-8 bytes.' }),
  bodyBytes: z.number().int().nullable().openapi({
    description:
      'The whole response body’s size in bytes: as read when read whole, else its Content-Length; null when neither is known.',
  }),
  durationMs: z.number().int().nullable(),
  error: z.string().nullable(),
});

/** GET /timers/{id}/tasks/{taskId}: a run opened, with the request its attempts send and each answer kept. */
export const RunDetailSchema = z
  .object({
    task: TaskSchema,
    request: z
      .object({
        method: z.string().openapi({ example: 'POST' }),
        url: z.string().openapi({ example: 'https://example.com/hooks/nightly' }),
        headers: z.record(z.string(), z.string()).openapi({
          description:
            'The headers of the latest attempt, credential values (authorization, tokens, keys, cookies, signatures) as ***.',
          example: { 'content-type': 'application/json', authorization: '***', 'x-xtimer-attempt': '1' },
        }),
        body: z.string().nullable(),
        bodyBytes: z.number().int().openapi({ description: 'The body’s size in UTF-8 bytes.' }),
        signed: z.boolean().openapi({
          description:
            'The app signs its calls: each attempt adds webhook-id, webhook-timestamp and webhook-signature.',
        }),
      })
      .openapi({
        description:
          "Rebuilt from the timer's callback as it is now and the run (task id, instant, attempt, trigger): the request builder is deterministic, so no request is stored. Every attempt sends it with its own x-xtimer-attempt (and, when signed, its own webhook-* headers); the headers shown are the latest attempt's.",
      }),
    attempts: z.array(AttemptAnswerSchema).openapi({
      description:
        'Each attempt’s answer kept, oldest first: the last four attempts at most (three earlier beside the latest). A call still in flight has none yet.',
    }),
    attemptsNotKept: z.number().int().openapi({
      description:
        'Attempts made whose answers are not kept (older than those listed), besides one in flight.',
    }),
    latest: AttemptAnswerSchema.nullable().openapi({
      description: 'The latest answer kept (the last of attempts); null before the first answer.',
    }),
  })
  .openapi('RunDetail');
