import { z } from '@hono/zod-openapi';
import { APPLY_ACTIONS, MAX_APPLY_TIMERS } from '../../src/domain/apply-plan.js';
import { BACKFILL_STATES } from '../../src/domain/backfill.js';
import { DurationSyntaxError, formatDuration, parseDuration } from '../../src/domain/duration.js';
import { CALENDAR_LIMITS, isCalendarDate } from '../../src/domain/schedule/calendar.js';
import { findHashedCronProblem } from '../../src/domain/schedule/hashed-cron.js';
import { MAX_JITTER_MS } from '../../src/domain/schedule/jitter.js';
import { FIXED_ABBREVIATIONS, isValidTimeZone } from '../../src/domain/schedule/time-zone.js';
import {
  callbackProblem,
  HTTP_METHODS,
  LIMITS,
  MISFIRE_POLICIES,
  NOTIFY_OUTCOMES,
  OVERLAP_POLICIES,
  RUN_TRIGGERS,
  TASK_STATUSES,
  TIMER_STATUSES,
  USER_TIMER_STATUSES,
} from '../../src/domain/timer.js';
import { ErrorCode } from '../../src/errors.js';

/**
 * Request and response schemas of the native API. The same schemas validate
 * requests and generate /openapi.json. An issue carrying `params.code` names its
 * error code; http/errors.ts maps the rest by field.
 */

const withCode = (code: ErrorCode) => ({ params: { code } });

export const AppSchema = z
  .string()
  .regex(
    LIMITS.appPattern,
    'must be 1-64 letters, digits, dots, dashes or underscores, starting alphanumeric',
  )
  .openapi({ example: 'billing', description: 'The business system that owns the timer.' });

const NO_CONTROL = /^[^\p{Cc}\p{Cs}]*$/u;
/**
 * Invisible format characters (Unicode Cf) hide or reorder what a name shows: bidi
 * overrides and isolates (U+202A–202E, U+2066–2069), zero-width spaces, BOM. Names may
 * hold any visible text, emoji included, so the joiners emoji sequences are built with
 * stay allowed: ZWNJ/ZWJ (U+200C/D) and the tag characters of flag sequences (U+E0020–E007F).
 */
const HIDDEN_FORMAT = /(?!\u200C|\u200D|[\u{E0020}-\u{E007F}])\p{Cf}/u;

export const NameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(LIMITS.nameMaxChars, `must be at most ${LIMITS.nameMaxChars} characters`)
  .regex(NO_CONTROL, 'must not contain control characters or unpaired surrogates')
  .refine(
    (v) => !HIDDEN_FORMAT.test(v),
    'must not contain invisible formatting characters (bidi overrides, zero-width spaces)',
  )
  .refine((v) => v.trim() === v, 'must not start or end with white space')
  .openapi({ example: 'nightly-invoice', description: 'Unique within the app.' });

export const CronSchema = z
  .string()
  .superRefine((value, ctx) => {
    // 7 fields (a trailing year) too: the form a compatible timer's cron is shown in, so a
    // native GET's cron can be sent back as it reads. H is resolved first (hashed-cron.ts).
    const problem = findHashedCronProblem(value, { allowYear: true });
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        // fromZodError prefixes "cron: ", so the message does not repeat it.
        message: problem.field ? `${problem.field} field: ${problem.message}` : problem.message,
        params: { code: ErrorCode.INVALID_CRON, field: problem.field },
      });
    }
  })
  .openapi({
    example: '0 30 2 * * *',
    description:
      'Cron with 5 fields (minute precision) or 6 (seconds first). Names, ranges, steps, L, # and W (nearest weekday, LW) are supported, and H, H(a-b), H/n: a value chosen by a stable hash of the app and timer name (resolvedCron shows it).',
  });

export const TimezoneSchema = z
  .string()
  .refine(isValidTimeZone, {
    // The name echoed (JSON-quoted, cut short), so a typo shows.
    error: (issue) =>
      `${JSON.stringify(String(issue.input).slice(0, 64))} is not an IANA time zone name (a canonical name such as America/New_York, or a link such as US/Eastern)`,
    ...withCode(ErrorCode.INVALID_TIMEZONE),
  })
  .refine((zone) => FIXED_ABBREVIATIONS[zone] === undefined, {
    error: (issue) => {
      const zone = String(issue.input);
      return `"${zone}" is a fixed offset all year, without daylight saving; use ${FIXED_ABBREVIATIONS[zone]} for the region's time, or an Etc/GMT zone for a fixed offset`;
    },
    ...withCode(ErrorCode.INVALID_TIMEZONE),
  })
  .openapi({ example: 'Asia/Shanghai' });

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;
/** RFC 9110 field-value characters: visible ASCII, space, tab, and obs-text bytes. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Headers a timer may not set: framing and connection headers the HTTP client owns
 * (a wrong one would corrupt the request or smuggle another), and the ones xtimer
 * itself sends (task id, signature), which a receiver must be able to trust.
 */
const RESERVED_HEADER =
  /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*|x-xtimer-.*|webhook-.*)$/i;

export const HeadersSchema = z
  .record(
    z.string(),
    z
      .string()
      .regex(HEADER_VALUE, 'header values must not contain CR, LF or NUL')
      .regex(FIELD_VALUE, 'header values may hold visible ASCII, spaces, tabs and Latin-1 only'),
  )
  .superRefine((headers, ctx) => {
    for (const name of Object.keys(headers)) {
      if (!HEADER_NAME.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `header name ${JSON.stringify(name)} is not an HTTP token`,
        });
      } else if (RESERVED_HEADER.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `header ${name} is set by the HTTP client or by xtimer (framing headers, x-xtimer-*, webhook-*)`,
        });
      }
    }
  })
  .refine((h) => Object.keys(h).length <= LIMITS.headersMax, `at most ${LIMITS.headersMax} headers`)
  .refine(
    (h) =>
      Object.entries(h).reduce((n, [name, value]) => n + name.length + value.length, 0) <=
      LIMITS.headersMaxBytes,
    `names and values together must be at most ${LIMITS.headersMaxBytes} bytes (8 KiB)`,
  )
  .openapi({
    example: { 'content-type': 'application/json' },
    description: 'A map of header name to string value; at most 64 headers, 8 KiB in total.',
  });

export const UrlSchema = z
  .string()
  .max(LIMITS.urlMaxChars, `must be at most ${LIMITS.urlMaxChars} characters`)
  // The URL parser silently drops tabs and line breaks; stored URLs hold none.
  .regex(/^[^\s\p{Cc}]*$/u, 'must not contain white space or control characters')
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http(s) URL' },
  )
  // A URL is shown back and logged as it is; credentials go in callback.headers instead.
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return u.username === '' && u.password === '';
      } catch {
        return true;
      }
    },
    {
      message:
        'must not carry user:password@ credentials; send them in callback.headers (e.g. Authorization)',
    },
  )
  .openapi({
    example: 'https://billing.internal/hooks/run',
    description:
      'http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).',
  });

export const MethodSchema = z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` });

export const CallbackBodySchema = z
  .string()
  .refine((v) => Buffer.byteLength(v, 'utf8') <= LIMITS.callbackBodyMaxBytes, {
    message: `must be at most ${LIMITS.callbackBodyMaxBytes} bytes`,
    ...withCode(ErrorCode.CALLBACK_BODY_TOO_LARGE),
  })
  .nullable()
  .openapi({ example: '{"k":1}', description: 'Sent as given, never re-encoded. At most 64 KiB.' });

const int = (min: number, max: number, what: string) =>
  z
    .number()
    .int(`${what} must be a whole number`)
    .min(min, `${what} must be >= ${min}`)
    .max(max, `${what} must be <= ${max}`);

export const TimeoutSchema = int(LIMITS.timeoutMs.min, LIMITS.timeoutMs.max, 'timeoutMs');

export const CallbackSchema = z
  .strictObject({
    url: UrlSchema,
    method: MethodSchema.default('POST'),
    headers: HeadersSchema.default({}),
    body: CallbackBodySchema.optional(),
    timeoutMs: TimeoutSchema.optional(),
  })
  .superRefine((cb, ctx) => {
    const problem = callbackProblem({ method: cb.method, body: cb.body ?? null });
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['body'] });
  })
  .openapi('Callback');

export const RetrySchema = z
  .strictObject({
    maxAttempts: int(LIMITS.maxAttempts.min, LIMITS.maxAttempts.max, 'maxAttempts').default(3),
    backoffMs: int(LIMITS.backoffMs.min, LIMITS.backoffMs.max, 'backoffMs').default(1000),
  })
  .openapi('RetryPolicy', {
    description: 'Attempts in all (1 = no retry); exponential backoff with jitter from backoffMs.',
  });

export const MisfirePolicySchema = z.enum(MISFIRE_POLICIES, {
  error: `must be one of ${MISFIRE_POLICIES.join(', ')}`,
});
export const MisfireThresholdSchema = int(
  LIMITS.misfireThresholdMs.min,
  LIMITS.misfireThresholdMs.max,
  'misfireThresholdMs',
);
export const TimerStatusSchema = z.enum(TIMER_STATUSES, {
  error: `must be one of ${TIMER_STATUSES.join(', ')}`,
});
/** What a user may set: `completed` is reached, not set. */
const SettableStatusSchema = z.enum(USER_TIMER_STATUSES, {
  error: `must be one of ${USER_TIMER_STATUSES.join(', ')}`,
});

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

/** A duration as written (`90m`, `1h30m`, `PT90M`), read as ms. */
const durationSchema = (what: string, min: number, max: number) =>
  z
    .string()
    .max(64)
    .transform((v, ctx) => {
      let ms: number;
      try {
        ms = parseDuration(v);
      } catch (err) {
        if (!(err instanceof DurationSyntaxError)) throw err;
        ctx.addIssue({ code: 'custom', message: err.message });
        return z.NEVER;
      }
      if (ms < min || ms > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${what} must be between ${formatDuration(min)} and ${formatDuration(max)}`,
        });
        return z.NEVER;
      }
      return ms;
    })
    .openapi({ type: 'string' });

export const EverySchema = durationSchema('every', LIMITS.everyMs.min, LIMITS.everyMs.max).openapi({
  example: '90m',
  description:
    'Instead of cron or at: an interval timer, running at epoch + offset + k·every in real time (no time zone, no DST). A count and a unit (s, m, h, d; 1h30m) or an ISO-8601 duration (PT90M); at least 1s.',
});

export const OffsetSchema = durationSchema('offset', 0, LIMITS.everyMs.max).openapi({
  example: '15m',
  description:
    'With every: where the runs fall within each period, from the epoch; shorter than every (default 0s).',
});

export const JitterSchema = int(0, MAX_JITTER_MS, 'jitterMs').openapi({
  example: 59_000,
  description:
    "Shifts each run by a stable offset in [0, jitterMs) from its nominal instant, derived from the timer id and that instant (0 = none; at most 1 h and the schedule's shortest gap). X-Xtimer-Scheduled-At carries the shifted instant, X-Xtimer-Nominal-At the nominal one.",
});

export const OverlapPolicySchema = z
  .enum(OVERLAP_POLICIES, { error: `must be one of ${OVERLAP_POLICIES.join(', ')}` })
  .openapi({
    description:
      'What a run does while the previous run of the timer (retries included) is still in flight: allow (call it), skip (record it skipped), buffer_one (let one wait, skip the rest).',
  });

export const NotifySchema = z
  .strictObject({
    url: UrlSchema,
    on: z
      .array(z.enum(NOTIFY_OUTCOMES, { error: `must be one of ${NOTIFY_OUTCOMES.join(', ')}` }))
      .min(1, 'must name at least one outcome')
      .max(NOTIFY_OUTCOMES.length)
      .default(['failed', 'missed'])
      .transform((on) => [...new Set(on)]),
  })
  .openapi('Notify', {
    description:
      'A POST of {type: run.failed | run.missed, timerId, app, taskId, runAt, attempts, httpStatus, error}, signed like callbacks, for each run that finally ends in one of the outcomes.',
  });

const MaxRunsSchema = int(1, 1_000_000_000, 'maxRuns');

export const AutoPauseSchema = z
  .strictObject({ afterConsecutiveFailures: int(1, 1000, 'afterConsecutiveFailures') })
  .openapi('AutoPause', {
    description:
      'Disable the timer after this many scheduled runs in a row end failed, with the note "auto-paused after N consecutive failures" and a timer.paused notification.',
  });

export const CalendarNameSchema = z
  .string()
  .regex(
    CALENDAR_LIMITS.namePattern,
    'must be 1-64 letters, digits, dots, dashes or underscores, starting alphanumeric',
  )
  .openapi({ example: 'us-holidays' });

const SkipCalendarsSchema = z
  .array(CalendarNameSchema)
  .max(CALENDAR_LIMITS.perTimer, `at most ${CALENDAR_LIMITS.perTimer} calendars`)
  .transform((names) => [...new Set(names)])
  .openapi({
    example: ['us-holidays'],
    description:
      "The app's calendars whose dates the timer skips: no run is planned on a listed date, read in the timer's zone (an interval's: UTC unless it names one). A calendar the app lacks: 400 CALENDAR_NOT_FOUND.",
  });

/** A pause's note: text for people, at most 1 KiB. */
const PauseNoteSchema = z
  .string()
  .refine((v) => Buffer.byteLength(v, 'utf8') <= 1024, { message: 'must be at most 1024 bytes' })
  .refine((v) => NO_CONTROL.test(v.replace(/[\t\n\r]/g, '')), {
    message: 'must not contain control characters (other than line breaks and tabs)',
  });

/** The optional body of a disable (and of an app's pause): why, and until when. */
export const PauseSchema = z
  .strictObject({
    note: PauseNoteSchema.nullable().optional().openapi({ example: 'receiver migrating to the new cluster' }),
    until: IsoInstantSchema.nullable().optional().openapi({
      description:
        'The timer resumes by itself at this time (once, cluster-wide); absent or null: until enabled.',
    }),
  })
  .openapi('Pause');

export const LabelsSchema = z
  .record(
    z.string(),
    z
      .string()
      .max(LIMITS.labelValueMaxChars, `label values must be at most ${LIMITS.labelValueMaxChars} characters`)
      .regex(NO_CONTROL, 'label values must not contain control characters or unpaired surrogates'),
  )
  .superRefine((labels, ctx) => {
    for (const key of Object.keys(labels)) {
      if (!LIMITS.labelKeyPattern.test(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `label key ${JSON.stringify(key.slice(0, 80))} must be 1-63 letters, digits, dots, dashes, underscores or slashes, starting alphanumeric`,
        });
      }
    }
  })
  .refine((l) => Object.keys(l).length <= LIMITS.labelsMax, `at most ${LIMITS.labelsMax} labels`)
  .openapi({
    example: { team: 'payments', env: 'prod' },
    description: `Key/value pairs to find the timer by (list filter label=key:value); at most ${LIMITS.labelsMax}.`,
  });

/** Text for people; line breaks and tabs are the only control characters it may hold. */
export const DescriptionSchema = z
  .string()
  .refine((v) => Buffer.byteLength(v, 'utf8') <= LIMITS.descriptionMaxBytes, {
    message: `must be at most ${LIMITS.descriptionMaxBytes} bytes`,
  })
  .refine((v) => NO_CONTROL.test(v.replace(/[\t\n\r]/g, '')), {
    message: 'must not contain control characters (other than line breaks and tabs) or unpaired surrogates',
  })
  .openapi({ example: 'Bills every customer at 02:30 Shanghai time.', description: 'At most 1 KiB.' });

const SCHEDULE_KINDS = ['cron', 'every', 'at'] as const;

/** A timer fires by its cron, by its interval (`every`) or once, `at` a time: exactly one of the three. */
function oneScheduleKind(
  t: {
    cron?: string | null | undefined;
    every?: number | null | undefined;
    at?: number | null | undefined;
    offset?: number | null | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const given = SCHEDULE_KINDS.filter((k) => t[k] != null);
  if (given.length !== 1) {
    const neither = given.length === 0;
    ctx.addIssue({
      code: 'custom',
      path: [neither ? 'cron' : given[1]!],
      message: neither
        ? 'give exactly one of cron (a schedule), every (an interval) and at (a one-shot time)'
        : `${given.join(' and ')} are mutually exclusive: give exactly one of cron (a schedule), every (an interval) and at (a one-shot time)`,
      // Without any, the cron is what is missing (as before one-shots existed).
      params: { code: neither ? ErrorCode.INVALID_CRON : ErrorCode.VALIDATION_FAILED, fields: given },
    });
  }
  if (t.offset != null && t.every == null) {
    ctx.addIssue({
      code: 'custom',
      path: ['offset'],
      message: 'is only for an interval timer: give every too',
    });
  }
}

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
    batchId: z.string().optional().openapi({
      description: 'The audit log entries of an apply that changed something carry this batchId.',
    }),
  })
  .openapi('ApplyResult');

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

export const TaskSchema = z
  .object({
    id: z.string().openapi({ example: '42_1795304060000', description: 'The task key: timerId_runAtMs.' }),
    timerId: z.number().int(),
    runAt: z.string().openapi({ example: '2026-11-22T10:00:00.000Z' }),
    status: z.enum(TASK_STATUSES),
    trigger: z
      .enum(RUN_TRIGGERS)
      .openapi({ description: 'What made the run: its schedule, a run now, or a retry.' }),
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
    durationMs: z.number().int().nullable(),
  })
  .openapi('Task');

/** A positive integer id as written in a path or query string, read as a number. */
export const PositiveIdSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer id')
  .transform(Number);

export const IdParamSchema = z.object({
  id: PositiveIdSchema.openapi({ param: { name: 'id', in: 'path' }, example: '42' }),
});

export const TimerNameParamSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' } }),
  name: NameSchema.openapi({ param: { name: 'name', in: 'path' } }),
});

export const AppPathSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' } }),
});

/** The If-Match request header of PATCH, PUT and DELETE. */
export const IfMatchHeaderSchema = z.object({
  'if-match': z.string().optional().openapi({
    example: '"3"',
    description:
      "The timer's ETag as last read: the change is made only if the timer is still at that version (412 VERSION_CONFLICT otherwise). `*`: only if it exists.",
  }),
});

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

/** POST /timers/{id}/backfills: the past range to run the schedule over. */
export const StartBackfillSchema = z
  .strictObject({
    from: IsoInstantSchema.openapi({ description: 'The first instant of the range (included).' }),
    to: IsoInstantSchema.openapi({
      description: 'The end of the range (excluded); not after now.',
      example: '2026-12-02T09:00:00Z',
    }),
    overlapPolicy: OverlapPolicySchema.optional().openapi({
      description:
        "What a backfill run does while the timer's previous run is in flight (default: the timer's policy).",
    }),
  })
  .openapi('StartBackfill');

export const BackfillParamSchema = IdParamSchema.extend({
  backfillId: PositiveIdSchema.openapi({ param: { name: 'backfillId', in: 'path' }, example: '7' }),
});

const BackfillProgressSchema = z
  .object({
    pending: z.number().int(),
    running: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    missed: z.number().int(),
  })
  .openapi('BackfillProgress');

export const BackfillSchema = z
  .object({
    id: z.number().int().openapi({ example: 7 }),
    timerId: z.number().int(),
    from: z.string(),
    to: z.string(),
    overlapPolicy: z.enum(OVERLAP_POLICIES).nullable(),
    status: z.enum(BACKFILL_STATES).openapi({
      description:
        'sending (queuing its runs at BACKFILL_RATE), sent (all queued, waiting for outcomes), completed (every run ended), cancelled',
    }),
    runs: z.number().int().openapi({ description: "The schedule's instants in the range." }),
    planned: z.number().int().openapi({
      description: 'Runs the backfill made: instants already in the run history are left alone.',
    }),
    sent: z.number().int().openapi({ description: 'Runs queued so far.' }),
    done: z
      .number()
      .int()
      .openapi({ description: 'Runs that have ended (succeeded, failed, skipped or missed).' }),
    failed: z.number().int(),
    progress: BackfillProgressSchema.openapi({ description: 'Its runs by status.' }),
    createdBy: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('Backfill');

/** A whole number in a query string: decimal digits only (no 0x10, 1e3, " 5", NaN or Infinity). */
const queryInt = (min: number, max: number, fallback: number) =>
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
        if (key in labels && labels[key] !== value) {
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

/** ISO-8601 or epoch milliseconds. */
const InstantSchema = z
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
function queryFlag(description: string) {
  return z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional()
    .openapi({ type: 'string', description });
}

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

const CalendarDateSchema = z.string().refine(isCalendarDate, {
  error: (i) => `${JSON.stringify(String(i.input).slice(0, 20))} is not a date YYYY-MM-DD`,
});

export const PutCalendarSchema = z
  .strictObject({
    dates: z
      .array(CalendarDateSchema)
      .max(CALENDAR_LIMITS.maxDates, `at most ${CALENDAR_LIMITS.maxDates} dates`)
      .openapi({ example: ['2026-12-25', '2027-01-01'] }),
    description: DescriptionSchema.nullable().optional(),
  })
  .openapi('PutCalendar');

export const CalendarSchema = z
  .object({
    app: z.string(),
    name: z.string(),
    dates: z.array(z.string()),
    description: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Calendar');

export const CalendarParamSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' }, example: 'billing' }),
  name: CalendarNameSchema.openapi({ param: { name: 'name', in: 'path' }, example: 'us-holidays' }),
});

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

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'INVALID_CRON' }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('Error');

export const page = <T extends z.ZodTypeAny>(item: T, name: string) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() }).openapi(name);
