import { z } from '@hono/zod-openapi';
import { DurationSyntaxError, formatDuration, parseDuration } from '../../src/domain/duration.js';
import { findHashedCronProblem } from '../../src/domain/schedule/hashed-cron.js';
import { MAX_JITTER_MS } from '../../src/domain/schedule/jitter.js';
import { FIXED_ABBREVIATIONS, isValidTimeZone } from '../../src/domain/schedule/time-zone.js';
import { LIMITS } from '../../src/domain/timer.js';
import { ErrorCode } from '../../src/errors.js';
import { int, withCode } from './common-schemas.js';

/** A timer's schedule: cron, interval (every, offset), jitter, zone, and the rule that it has exactly one kind. */

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

export const SCHEDULE_KINDS = ['cron', 'every', 'at'] as const;

/** A timer fires by its cron, by its interval (`every`) or once, `at` a time: exactly one of the three. */
export function oneScheduleKind(
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
