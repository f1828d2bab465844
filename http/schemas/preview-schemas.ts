import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../src/errors.js';
import { AppSchema, InstantSchema, queryFlag, queryInt } from './common-schemas.js';
import { CronSchema, EverySchema, OffsetSchema, TimezoneSchema } from './schedule-schemas.js';
import { NameSchema } from './timer-field-schemas.js';

/** Previews: a saved timer's next fire times (explained with the calendars that skip some), and a schedule's as typed. */

/** Preview instants reach to year 9999: the tz database's rules run that far, and so do ISO years. */
const PREVIEW_FROM_MAX = Date.UTC(9999, 0, 1);

export const PreviewQuerySchema = z.object({
  count: queryInt(1, 1000, 10),
  from: InstantSchema.pipe(
    z.number().min(0, 'must not be before 1970').max(PREVIEW_FROM_MAX, 'must be before the year 9999'),
  )
    .optional()
    .openapi({
      description: 'ISO-8601 time or epoch ms: the fire times at or after it (default: those after now).',
    }),
});

/** A saved timer's preview: with explain=true, each item says whether a calendar skips it. */
export const TimerPreviewQuerySchema = PreviewQuerySchema.extend({
  explain: queryFlag(
    'true: items are {at, skippedBy}, the dates a calendar skips included, skippedBy naming the calendars (null for a run that fires).',
  ),
});

export const ExplainedPreviewSchema = z
  .object({
    timerId: z.number().int(),
    timezone: z.string(),
    items: z.array(z.object({ at: z.string(), skippedBy: z.array(z.string()).nullable() })),
  })
  .openapi('ExplainedPreview');

/** A preview of a schedule not saved yet: what a form shows as a cron is typed. */
export const SchedulePreviewQuerySchema = PreviewQuerySchema.extend({
  cron: CronSchema.optional(),
  every: EverySchema.optional(),
  offset: OffsetSchema.optional(),
  timezone: TimezoneSchema.default('UTC'),
  app: AppSchema.optional().openapi({
    description: 'With name: the timer H in the cron is resolved for (default: none).',
  }),
  name: NameSchema.optional(),
}).superRefine((q, ctx) => {
  if ((q.cron === undefined) === (q.every === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [q.cron === undefined ? 'cron' : 'every'],
      message: 'give exactly one of cron and every',
      params: { code: q.cron === undefined ? ErrorCode.INVALID_CRON : ErrorCode.VALIDATION_FAILED },
    });
  }
  if (q.offset !== undefined && (q.every === undefined || q.offset >= q.every)) {
    ctx.addIssue({ code: 'custom', path: ['offset'], message: 'needs every, and must be shorter than it' });
  }
});

export const PreviewSchema = z
  .object({
    timerId: z.number().int().optional().openapi({ description: 'Absent for an unsaved schedule.' }),
    timezone: z.string(),
    items: z.array(z.string()).openapi({ example: ['2026-11-22T02:30:00.000+08:00'] }),
  })
  .openapi('Preview');
