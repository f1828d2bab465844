import { z } from '@hono/zod-openapi';
import {
  callbackProblem,
  HTTP_METHODS,
  LIMITS,
  MISFIRE_POLICIES,
  NOTIFY_OUTCOMES,
  OVERLAP_POLICIES,
  TIMER_STATUSES,
  USER_TIMER_STATUSES,
} from '../../src/domain/timer.js';
import { ErrorCode } from '../../src/errors.js';
import { IsoInstantSchema, int, NO_CONTROL, withCode } from './common-schemas.js';

/** A timer's fields other than its schedule: name, callback, retry, policies, notify, labels, pause. */

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
export const SettableStatusSchema = z.enum(USER_TIMER_STATUSES, {
  error: `must be one of ${USER_TIMER_STATUSES.join(', ')}`,
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

export const MaxRunsSchema = int(1, 1_000_000_000, 'maxRuns');

export const AutoPauseSchema = z
  .strictObject({ afterConsecutiveFailures: int(1, 1000, 'afterConsecutiveFailures') })
  .openapi('AutoPause', {
    description:
      'Disable the timer after this many scheduled runs in a row end failed, with the note "auto-paused after N consecutive failures" and a timer.paused notification.',
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
