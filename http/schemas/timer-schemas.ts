import { z } from '@hono/zod-openapi';
import { LIMITS, NOTIFY_OUTCOMES } from '../../src/domain/timer.js';
import { SELECTION_ACTIONS, SELECTION_MAX } from '../../src/services/timers/timer-selection.js';
import { SkipCalendarsSchema } from './calendar-schemas.js';
import {
  AppSchema,
  CursorSchema,
  IsoInstantSchema,
  int,
  LimitSchema,
  PositiveIdSchema,
} from './common-schemas.js';
import {
  CronSchema,
  EverySchema,
  JitterSchema,
  OffsetSchema,
  oneScheduleKind,
  SCHEDULE_KINDS,
  TimezoneSchema,
} from './schedule-schemas.js';
import {
  AutoPauseSchema,
  CallbackBodySchema,
  CallbackSchema,
  DescriptionSchema,
  HeadersSchema,
  LabelsSchema,
  MaxRunsSchema,
  MethodSchema,
  MisfirePolicySchema,
  MisfireThresholdSchema,
  NameSchema,
  NotifySchema,
  OverlapPolicySchema,
  PauseSchema,
  RetrySchema,
  SettableStatusSchema,
  TimeoutSchema,
  TimerStatusSchema,
  UrlSchema,
} from './timer-field-schemas.js';

/**
 * Request and response schemas of the native API's timers: the create, PATCH and list
 * bodies and the timer as answered. The same schemas validate requests and generate
 * /openapi.json; the other resources' are beside this file, one file per concept.
 */

/**
 * The create body's fields (the compatible routes extend them); CreateTimerSchema adds the rule
 * between them. Null stands for absent, so that a timer as GET returns it is a valid create body.
 */
export const CreateTimerFields = z.strictObject({
  app: AppSchema,
  name: NameSchema,
  cron: CronSchema.nullable().optional(),
  at: IsoInstantSchema.nullable().optional().openapi({
    description: 'Instead of cron: a one-shot timer firing once, at this time; then it is completed.',
  }),
  every: EverySchema.nullable().optional(),
  offset: OffsetSchema.nullable().optional(),
  jitterMs: JitterSchema.optional(),
  timezone: TimezoneSchema.default('UTC'),
  callback: CallbackSchema,
  retry: RetrySchema.default({ maxAttempts: 3, backoffMs: 1000 }),
  misfirePolicy: MisfirePolicySchema.default('fire_once'),
  misfireThresholdMs: MisfireThresholdSchema.default(60_000),
  startAt: IsoInstantSchema.nullable().optional().openapi({ description: 'No run before this time.' }),
  endAt: IsoInstantSchema.nullable().optional().openapi({
    description: 'No run at or after this time; then it is completed.',
  }),
  maxRuns: MaxRunsSchema.nullable().optional().openapi({
    description: 'At most this many scheduled runs; then it is completed.',
  }),
  overlapPolicy: OverlapPolicySchema.default('allow'),
  notify: NotifySchema.nullable().optional().openapi({
    description: "Where failed or missed runs are reported (default: the app's).",
  }),
  labels: LabelsSchema.default({}),
  description: DescriptionSchema.nullable().optional(),
  autoPause: AutoPauseSchema.nullable().optional(),
  skipCalendars: SkipCalendarsSchema.optional(),
  status: SettableStatusSchema.default('inactive'),
});

export const CreateTimerSchema = CreateTimerFields.superRefine(oneScheduleKind).openapi('CreateTimer');

/** The most timers one POST /timers/batch may create. */
export const MAX_BATCH_TIMERS = 1000;

export const CreateTimerBatchSchema = z
  .strictObject({
    timers: z
      .array(CreateTimerSchema)
      .min(1, 'must hold at least one timer')
      .max(MAX_BATCH_TIMERS, `must hold at most ${MAX_BATCH_TIMERS} timers`),
  })
  .openapi('CreateTimerBatch');

/** The PATCH body's fields (the compatible routes extend them); UpdateTimerSchema adds the rule between them. */
export const UpdateTimerFields = z.strictObject({
  name: NameSchema.optional(),
  cron: CronSchema.optional(),
  timezone: TimezoneSchema.optional(),
  callback: z
    .strictObject({
      url: UrlSchema.optional(),
      method: MethodSchema.optional(),
      headers: HeadersSchema.optional(),
      body: CallbackBodySchema.optional(),
      timeoutMs: TimeoutSchema.optional(),
    })
    .optional(),
  retry: z
    .strictObject({
      maxAttempts: int(LIMITS.maxAttempts.min, LIMITS.maxAttempts.max, 'maxAttempts').optional(),
      backoffMs: int(LIMITS.backoffMs.min, LIMITS.backoffMs.max, 'backoffMs').optional(),
    })
    .optional(),
  misfirePolicy: MisfirePolicySchema.optional(),
  misfireThresholdMs: MisfireThresholdSchema.optional(),
  at: IsoInstantSchema.optional(),
  every: EverySchema.optional(),
  offset: OffsetSchema.optional(),
  jitterMs: JitterSchema.optional(),
  startAt: IsoInstantSchema.nullable().optional(),
  endAt: IsoInstantSchema.nullable().optional(),
  maxRuns: MaxRunsSchema.nullable().optional(),
  overlapPolicy: OverlapPolicySchema.optional(),
  notify: NotifySchema.nullable().optional(),
  labels: LabelsSchema.optional().openapi({ description: 'Replaces the labels whole ({} removes them).' }),
  description: DescriptionSchema.nullable().optional(),
  autoPause: AutoPauseSchema.nullable().optional(),
  skipCalendars: SkipCalendarsSchema.optional(),
});

export const UpdateTimerSchema = UpdateTimerFields.superRefine((p, ctx) => {
  if (SCHEDULE_KINDS.filter((k) => p[k] !== undefined).length > 1) oneScheduleKind(p, ctx);
}).openapi('UpdateTimer', {
  description:
    'Any subset of fields; callback and retry merge field by field, labels are replaced whole. A cron, every or at turns the timer into that kind (the other two are cleared); offset alone moves an interval timer; null clears startAt, endAt, maxRuns, notify and description.',
});

export const TimerSchema = z
  .object({
    id: z.number().int().openapi({ example: 42 }),
    app: z.string().openapi({ example: 'billing' }),
    name: z.string().openapi({ example: 'nightly-invoice' }),
    cron: z
      .string()
      .nullable()
      .openapi({ example: '0 30 2 * * *', description: 'Null for a one-shot timer.' }),
    at: z
      .string()
      .nullable()
      .openapi({ description: "A one-shot timer's time (ISO-8601); null for a cron or interval timer." }),
    every: z.string().nullable().openapi({
      example: '90m',
      description: "An interval timer's period; null for a cron or one-shot timer.",
    }),
    offset: z.string().nullable().openapi({
      example: '0s',
      description: "An interval timer's offset from the epoch; null for other timers.",
    }),
    resolvedCron: z.string().nullable().openapi({
      example: '0 17 * * * *',
      description:
        'The cron with its H values resolved for this timer (the same on every node); null without a cron.',
    }),
    jitterMs: z.number().int(),
    timezone: z.string().openapi({ example: 'Asia/Shanghai' }),
    callback: z.object({
      url: z.string(),
      method: MethodSchema,
      headers: z.record(z.string(), z.string()),
      body: z.string().nullable(),
      timeoutMs: z.number().int(),
    }),
    retry: z.object({ maxAttempts: z.number().int(), backoffMs: z.number().int() }),
    misfirePolicy: MisfirePolicySchema,
    misfireThresholdMs: z.number().int(),
    startAt: z.string().nullable(),
    endAt: z.string().nullable(),
    maxRuns: z.number().int().nullable(),
    overlapPolicy: OverlapPolicySchema,
    notify: z.object({ url: z.string(), on: z.array(z.enum(NOTIFY_OUTCOMES)) }).nullable(),
    labels: z.record(z.string(), z.string()).openapi({ example: { team: 'payments' } }),
    description: z.string().nullable(),
    status: TimerStatusSchema.openapi({
      description: 'completed: a one-shot that has fired, or a timer past its endAt or maxRuns.',
    }),
    pausedNote: z
      .string()
      .nullable()
      .openapi({ description: "Why it was disabled (the disable's note, or an auto-pause's)." }),
    pausedAt: z.string().nullable().openapi({ description: 'When it was disabled; null while active.' }),
    pausedUntil: z
      .string()
      .nullable()
      .openapi({ description: 'When it resumes by itself; null: until enabled.' }),
    autoPause: z.object({ afterConsecutiveFailures: z.number().int() }).nullable(),
    skipCalendars: z.array(z.string()),
    createdAt: z.string().openapi({ example: '2026-11-21T10:00:00.000Z' }),
    updatedAt: z.string().openapi({ example: '2026-11-21T10:00:00.000Z' }),
  })
  .openapi('Timer');

export const TimerBatchSchema = z
  .object({ items: z.array(TimerSchema).openapi({ description: 'The timers created, in the order sent.' }) })
  .openapi('TimerBatch');

export const IdParamSchema = z.object({
  id: PositiveIdSchema.openapi({ param: { name: 'id', in: 'path' }, example: '42' }),
});

/** The If-Match request header of PATCH, PUT and DELETE. */
export const IfMatchHeaderSchema = z.object({
  'if-match': z.string().optional().openapi({
    example: '"3"',
    description:
      "The timer's ETag as last read: the change is made only if the timer is still at that version (412 VERSION_CONFLICT otherwise). `*`: only if it exists.",
  }),
});

/** `key:value`, the value after the first colon. */
const LabelFilterSchema = z
  .string()
  .max(LIMITS.labelValueMaxChars + 64)
  .transform((v, ctx) => {
    const colon = v.indexOf(':');
    const key = colon < 0 ? '' : v.slice(0, colon);
    if (!LIMITS.labelKeyPattern.test(key)) {
      ctx.addIssue({ code: 'custom', message: 'must be key:value, with a label key before the colon' });
      return z.NEVER;
    }
    return [key, v.slice(colon + 1)] as const;
  });

export const ListTimersQuerySchema = z.object({
  app: AppSchema.optional(),
  status: TimerStatusSchema.optional(),
  label: z
    .union([LabelFilterSchema.transform((pair) => [pair]), z.array(LabelFilterSchema).max(LIMITS.labelsMax)])
    .transform((pairs, ctx) => {
      const labels: Record<string, string> = {};
      for (const [key, value] of pairs) {
        if (Object.hasOwn(labels, key) && labels[key] !== value) {
          ctx.addIssue({ code: 'custom', message: `label ${key} is asked for with two values` });
          return z.NEVER;
        }
        labels[key] = value;
      }
      return labels;
    })
    .optional()
    .openapi({
      type: 'string',
      example: 'team:payments',
      description: 'key:value; repeat it for timers carrying every one of the labels.',
    }),
  q: z
    .string()
    .max(LIMITS.nameMaxChars)
    .optional()
    .openapi({ description: 'Timers whose name holds this text (case-insensitive).' }),
  limit: LimitSchema,
  cursor: CursorSchema,
});

/** POST /timers/bulk: one action over timers chosen by hand or by a filter. */
export const BulkActionSchema = PauseSchema.extend({
  action: z.enum(SELECTION_ACTIONS).openapi({
    description: 'pause (with the note and until, the same for each), resume, or trigger (run now).',
  }),
  ids: z
    .array(z.number().int().positive())
    .min(1)
    .max(SELECTION_MAX)
    .openapi({ description: `The timers, 1 to ${SELECTION_MAX}.`, example: [12, 13, 21] }),
}).openapi('BulkAction', {
  description:
    'note and until apply to a pause only. Every timer is checked first: one the key may not use refuses the whole batch.',
});

export const BulkResultSchema = z
  .object({
    action: z.enum(SELECTION_ACTIONS),
    batchId: z.string().nullable().openapi({
      description: 'The batch the audit log files each change under (GET /audit?batchId=).',
    }),
    selected: z.number().int().openapi({ description: 'How many distinct timers were selected.' }),
    changed: z.number().int().openapi({ description: 'How many it paused, resumed or ran now.' }),
    unchanged: z.array(z.number().int()).openapi({
      description: 'Those left as they were: already paused (pause), already active or completed (resume).',
    }),
  })
  .openapi('BulkResult');
