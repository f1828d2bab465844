import { z } from 'zod';
import { CreateTimerFields, UpdateTimerFields } from '../../http/schemas/timer-schemas.js';
import { formatDuration } from '../../src/domain/duration.js';
import { CronSyntaxError } from '../../src/domain/schedule/cron-schedule.js';
import { cronexprFromNative, nativeFromCronexpr } from '../../src/domain/schedule/cronexpr-dialect.js';
import { scheduleOf } from '../../src/domain/schedule/timer-schedule.js';
import type { Task, TaskStatus, Timer, TimerStatus } from '../../src/domain/timer.js';
import { ErrorCode } from '../../src/errors.js';

/**
 * The Go xTimer's wire format (its common/model/vo and common/consts), field for field:
 * the request DTOs as gin binds them, and the answers as encoding/json writes them.
 */

/** consts.TimerStatus: Unabled 1, Enabled 2; a completed timer (it will not fire again) reads as Unabled. */
export const TIMER_STATUS_TO_GO: Readonly<Record<TimerStatus, 1 | 2>> = {
  inactive: 1,
  active: 2,
  completed: 1,
};

/**
 * consts.TaskStatus: NotRunned 0, Running 1, Successed 2, Failed 3. Skipped and missed
 * runs have no counterpart there, so they get values the original never uses.
 */
export const TASK_STATUS_TO_GO: Readonly<Record<TaskStatus, number>> = {
  pending: 0,
  running: 1,
  succeeded: 2,
  failed: 3,
  skipped: 4,
  missed: 5,
};

/** The runs `records` lists: like the original, every one but those not yet run (the planned-ahead ones). */
export const RECORD_STATUSES: readonly TaskStatus[] = ['running', 'succeeded', 'failed', 'skipped', 'missed'];

// ---- Requests, as gin binds them: a failure here is the original's 400. ----

/** gin's `binding:"required"` on a string: present and not empty. */
const required = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .min(1, 'is required');

/** A positive id: a JSON number, or its decimal digits (query strings); nothing else passes for one. */
const IdValue = z.union(
  [
    z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    z
      .string()
      .regex(/^[1-9][0-9]{0,14}$/)
      .transform(Number),
  ],
  { error: 'must be a positive integer id' },
);

/** Go's PageLimiter: a missing, zero or negative index or size means the default (page 1 of 10). */
const pageField = (fallback: number, max: number) =>
  z
    .union([
      z.number().int(),
      z
        .string()
        .regex(/^-?[0-9]{1,10}$/, 'must be a whole number')
        .transform(Number),
    ])
    .pipe(z.number().int().max(max))
    .transform((v) => (v <= 0 ? fallback : v))
    .default(fallback);

const Page = z.object({
  pageIndex: pageField(1, 1_000_000_000),
  pageSize: pageField(10, 500),
});

/** vo.NotifyHTTPParam. A header value may also be a list (joined with ", "), as this API once took it. */
const NotifyHTTPParamDto = z.object({
  // Required by the original; POST when absent or empty here.
  method: z.string().optional(),
  url: required,
  header: z.record(z.string(), z.union([z.string(), z.array(z.string())])).nullish(),
  body: z.string().nullish(),
});
export type NotifyHTTPParamDto = z.infer<typeof NotifyHTTPParamDto>;

/** Go clients send their zero value, 0, when no status is set; on create, as in the original, it means inactive. */
const GoTimerStatus = z.union([z.literal(0), z.literal(1), z.literal(2)]);

/** vo.Timer as POST /api/timer/v1/def binds it. */
export const CreateTimerDto = z.object({
  app: required,
  name: required,
  cron: required,
  status: GoTimerStatus.optional(),
  notifyHTTPParam: NotifyHTTPParamDto,
});

/**
 * vo.Timer as PATCH /api/timer/v1/def takes it. Go omits empty fields (omitempty), so an
 * absent or empty field is left as it is; status 0, Go's zero value, leaves it too.
 */
export const UpdateTimerDto = z.object({
  id: IdValue,
  app: z.string().optional(),
  name: z.string().optional(),
  cron: z.string().optional(),
  status: GoTimerStatus.optional(),
  notifyHTTPParam: NotifyHTTPParamDto.nullish(),
});

/** vo.TimerReq: the original requires `app` and ignores it; here it is optional and, when given, checked. */
export const TimerRefDto = z.object({ id: IdValue, app: z.string().optional() });

/** vo.GetAppTimersReq. */
export const GetAppTimersDto = Page.extend({ app: required });

/** vo.GetTimersByNameReq; `name` (an exact name) is this API's own addition. */
export const GetTimersByNameDto = Page.extend({
  app: required,
  fuzzyName: z.string().optional(),
  name: z.string().optional(),
}).refine((q) => Boolean(q.fuzzyName || q.name), { message: 'is required', path: ['fuzzyName'] });

/** vo.GetTasksReq. */
export const GetTasksDto = Page.extend({ timerID: IdValue });

// ---- What the service then checks: a failure here is the original's HTTP 200 with code -1. ----

/** A cron read as cronexpr reads it, becoming its native form. */
const CronexprSchema = z.string().transform((value, ctx) => {
  try {
    return nativeFromCronexpr(value);
  } catch (err) {
    if (!(err instanceof CronSyntaxError)) throw err;
    const { field, message } = err.problem;
    ctx.addIssue({
      code: 'custom',
      message: field ? `${field} field: ${message}` : message,
      params: { code: ErrorCode.INVALID_CRON },
    });
    return z.NEVER;
  }
});

/** The native create rules, with the cron in cronexpr's dialect. */
export const CompatCreateSchema = CreateTimerFields.extend({ cron: CronexprSchema });
/** The native PATCH rules, with the cron in cronexpr's dialect. */
export const CompatUpdateSchema = UpdateTimerFields.extend({ cron: CronexprSchema.optional() });

/** A Go client's callback in native terms; the whole param replaces the callback's target, headers and body. */
export function callbackFromGo(p: NotifyHTTPParamDto) {
  return {
    url: p.url,
    method: (p.method || 'POST').toUpperCase(),
    headers: Object.fromEntries(
      Object.entries(p.header ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
    body: p.body ?? null,
  };
}

// ---- Answers, as encoding/json writes the original's structs. ----

/**
 * vo.Timer. `omitempty` leaves out an empty header map and an empty body. The cron is the
 * one the Go client wrote, or for a timer whose cron was set natively, a form cronexpr
 * reads the same way.
 */
export function goTimer(t: Timer) {
  const { method, url, headers, body } = t.callback;
  return {
    id: t.id,
    app: t.app,
    name: t.name,
    status: TIMER_STATUS_TO_GO[t.status],
    cron:
      t.compatCron ??
      (t.cron !== null
        ? cronexprFromNative(scheduleOf(t).resolvedCron ?? t.cron)
        : t.everyMs !== null
          ? `@every ${formatDuration(t.everyMs)}`
          : cronexprAt(t.at ?? 0)),
    notifyHTTPParam: {
      method,
      url,
      ...(Object.keys(headers).length > 0 ? { header: { ...headers } } : {}),
      ...(body ? { body } : {}),
    },
  };
}

/** A one-shot timer's time as the 7-field cron (UTC, with its year) that fires only then. */
function cronexprAt(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} * ${d.getUTCFullYear()}`;
}

/** vo.Task: costTime is the call's duration in ms; output the response body, or without one, the error. */
export function goTask(t: Task) {
  return {
    id: t.rowId,
    app: t.app,
    timerID: t.timerId,
    output: t.output ?? t.error ?? '',
    runTimer: new Date(t.runAt).toISOString(),
    costTime: t.durationMs ?? 0,
    status: TASK_STATUS_TO_GO[t.status],
  };
}
