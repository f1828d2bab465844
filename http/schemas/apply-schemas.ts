import { z } from '@hono/zod-openapi';
import { APPLY_ACTIONS, MAX_APPLY_TIMERS } from '../../src/domain/apply-plan.js';
import { AppSchema } from './common-schemas.js';
import { oneScheduleKind } from './schedule-schemas.js';
import { NameSchema } from './timer-field-schemas.js';
import { CreateTimerFields } from './timer-schemas.js';

/** Timers as code: the PUT of one timer by name and the apply of an app's whole set. */

export const TimerNameParamSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' } }),
  name: NameSchema.openapi({ param: { name: 'name', in: 'path' } }),
});

export const AppPathSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' } }),
});

/** A timer as PUT /apps/{app}/timers/{name} takes it: the create body without app; the name, if given, is the path's. */
export const UpsertTimerSchema = CreateTimerFields.omit({ app: true })
  .extend({ name: NameSchema.optional().openapi({ description: "If given, the path's name." }) })
  .superRefine(oneScheduleKind)
  .openapi('UpsertTimer', {
    description:
      'The whole definition: fields left out take their defaults, as on create (a timer without status is inactive).',
  });

/** A timer of an apply: the create body without app. */
export const ApplyTimerSchema = CreateTimerFields.omit({ app: true })
  .superRefine(oneScheduleKind)
  .openapi('ApplyTimer');

export const ApplySchema = z
  .strictObject({
    timers: z
      .array(ApplyTimerSchema)
      .max(MAX_APPLY_TIMERS, `must hold at most ${MAX_APPLY_TIMERS} timers`)
      .openapi({ description: "The app's whole set of timers, each name once." }),
    prune: z.boolean().default(false).openapi({ description: "Delete the app's timers the set leaves out." }),
    dryRun: z.boolean().default(false).openapi({ description: 'Only plan: change nothing.' }),
    planId: z
      .string()
      .max(64)
      .optional()
      .openapi({
        description:
          "Carry out only the plan of this id, as a dry run answered it: if the app's timers or the set " +
          'changed since, 412 VERSION_CONFLICT and nothing changes.',
        example: '3f9a0c2d71be4e58',
      }),
  })
  .openapi('Apply');

export const ApplyStepSchema = z
  .object({
    name: z.string(),
    action: z.enum(APPLY_ACTIONS),
    changes: z
      .record(z.string(), z.object({ before: z.unknown(), after: z.unknown() }))
      .optional()
      .openapi({
        description: "An update's changed fields (callback.url, cron, …), credentials masked.",
        example: { cron: { before: '0 * * * *', after: '*/30 * * * *' } },
      }),
  })
  .openapi('ApplyStep');

export const ApplyResultSchema = z
  .object({
    plan: z.array(ApplyStepSchema).openapi({
      description: 'Each timer of the set in the order sent, then (with prune) the deletions.',
    }),
    applied: z.boolean().openapi({ description: 'false for a dry run.' }),
    planId: z.string().openapi({
      description: 'The id of this plan: send it back as `planId` to apply this plan and no other.',
      example: '3f9a0c2d71be4e58',
    }),
    batchId: z.string().optional().openapi({
      description: 'The audit log entries of an apply that changed something carry this batchId.',
    }),
  })
  .openapi('ApplyResult');
