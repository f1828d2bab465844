import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { Timer } from '../../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { Logger } from '../../src/observability/logger.js';
import type { ScopedTimers } from '../../src/services/scoped-timers.js';
import type { TimerService } from '../../src/services/timer-service.js';
import type { ApiEnv } from '../auth.js';
import { errorHeaders, fromZodError, respondError, statusOf, toXtimerError } from '../errors.js';
import { draftFrom } from '../timer-draft.js';
import {
  CompatCreateSchema,
  CompatUpdateSchema,
  CreateTimerDto,
  callbackFromGo,
  GetAppTimersDto,
  GetTasksDto,
  GetTimersByNameDto,
  goTask,
  goTimer,
  RECORD_STATUSES,
  TimerRefDto,
  UpdateTimerDto,
} from './compat-xtimer-dto.js';

/**
 * Drop-in routes for clients of the Go xTimer (README "Migrating from the Go xTimer"):
 * its routes, DTOs and `{code, msg, err}` envelope, over the same TimerService as the
 * native API. Errors answer as the original does: 400 when the request does not bind,
 * HTTP 200 with `code: -1` otherwise; `msg` starts with the native error code.
 */

export interface CompatDeps {
  timers: TimerService;
  callbackTimeoutMs: number;
  logger?: Logger;
}

/** The paths this API answers: their errors (even a 413 or an unknown route) use its envelope. */
export const COMPAT_PATH = /^\/api\/(timer|task)\/v1\//;

/** The request does not bind to the original's DTO (bad JSON, a wrong type, a missing field): gin answers 400. */
class BindError extends XtimerError {}

/**
 * Failures the original cannot produce keep their own status, so that no Go client takes
 * them for an answer: authentication (401, 403), open mode's browser defences (403, 421,
 * 415), the rate limit (429, with Retry-After), an oversized body (413), an unknown route
 * (404, as gin answers it), and server faults.
 */
const OWN_STATUS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.UNAUTHORIZED,
  ErrorCode.FORBIDDEN,
  ErrorCode.CROSS_SITE_REFUSED,
  ErrorCode.HOST_NOT_ALLOWED,
  ErrorCode.RATE_LIMITED,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.NOT_FOUND,
  ErrorCode.UNAVAILABLE,
  ErrorCode.INTERNAL,
]);

function compatStatus(e: XtimerError): ContentfulStatusCode {
  if (e instanceof BindError || e.code === ErrorCode.INVALID_JSON) return 400;
  return OWN_STATUS.has(e.code) ? statusOf(e.code) : 200;
}

/** vo.CodeMsg. `err` is always null: the only value a Go client can decode into its `error` field. */
const envelope = (code: 0 | -1, msg: string) => ({ code, msg, err: null });

/** An error in the original's envelope: `code: -1`, `msg` starting with the native error code. */
export function respondCompatError(c: Context, err: unknown, logger?: Logger): Response {
  const e = toXtimerError(err, logger);
  return c.json(envelope(-1, `${e.code}: ${e.message}`), compatStatus(e), errorHeaders(e));
}

/** An error in the envelope of the API `c`'s path belongs to: this one's, or the native one. */
export function respondErrorByPath(c: Context, err: unknown, logger?: Logger): Response {
  return COMPAT_PATH.test(c.req.path) ? respondCompatError(c, err, logger) : respondError(c, err, logger);
}

/** The original's success answer: code 0, an empty msg, and the route's fields. */
const ok = <T extends object>(fields: T) => ({ ...envelope(0, ''), ...fields });

async function bind<T extends z.ZodTypeAny>(schema: T, value: unknown): Promise<z.output<T>> {
  const result = await schema.safeParseAsync(value);
  if (result.success) return result.data;
  const e = fromZodError(result.error, 'request');
  throw new BindError(e.code, e.message, e.details);
}

async function check<T extends z.ZodTypeAny>(schema: T, value: unknown): Promise<z.output<T>> {
  const result = await schema.safeParseAsync(value);
  if (!result.success) throw fromZodError(result.error, 'body');
  return result.data;
}

async function readJson(req: { json(): Promise<unknown> }): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw new BindError(ErrorCode.INVALID_JSON, 'request body is not valid JSON');
  }
}

/** The timer a request names. The original requires `app` and ignores it; given here, it must be the timer's. */
async function timerOf(timers: ScopedTimers, ref: { id: number; app?: string | undefined }): Promise<Timer> {
  const timer = await timers.get(ref.id);
  if (ref.app && ref.app !== timer.app) {
    throw new XtimerError(ErrorCode.TIMER_NOT_FOUND, `timer ${ref.id} does not exist in app ${ref.app}`);
  }
  return timer;
}

const offsetOf = (q: { pageIndex: number; pageSize: number }) => ({
  offset: (q.pageIndex - 1) * q.pageSize,
  limit: q.pageSize,
});

export function compatRoutes({ timers: service, callbackTimeoutMs, logger }: CompatDeps) {
  // The same services, as the caller's actor: the same access rules and limits as the native API.
  const timersOf = (c: { var: ApiEnv['Variables'] }) => service.as(c.var.actor);

  const app = new Hono<ApiEnv>()
    .post('/api/timer/v1/def', async (c) => {
      const dto = await bind(CreateTimerDto, await readJson(c.req));
      const input = await check(CompatCreateSchema, {
        app: dto.app,
        name: dto.name,
        cron: dto.cron,
        status: dto.status === 2 ? 'active' : 'inactive',
        callback: callbackFromGo(dto.notifyHTTPParam),
      });
      const draft = draftFrom(input, callbackTimeoutMs, { compatCron: dto.cron.trim() });
      const timer = await timersOf(c).create(draft);
      return c.json(ok({ id: timer.id }));
    })
    .get('/api/timer/v1/def', async (c) => {
      const ref = await bind(TimerRefDto, c.req.query());
      return c.json(ok({ data: goTimer(await timerOf(timersOf(c), ref)) }));
    })
    .patch('/api/timer/v1/def', async (c) => {
      const dto = await bind(UpdateTimerDto, await readJson(c.req));
      const timers = timersOf(c);
      await timerOf(timers, dto);
      const patch = await check(CompatUpdateSchema, {
        name: dto.name || undefined,
        cron: dto.cron || undefined,
        callback: dto.notifyHTTPParam ? callbackFromGo(dto.notifyHTTPParam) : undefined,
      });
      // The definition first, so that a refused change (a name taken) leaves the status alone too.
      if (patch.name !== undefined || patch.cron !== undefined || patch.callback !== undefined) {
        await timers.update(dto.id, { ...patch, ...(dto.cron ? { compatCron: dto.cron.trim() } : {}) });
      }
      if (dto.status === 2) await timers.enable(dto.id);
      if (dto.status === 1) await timers.disable(dto.id);
      return c.json(ok({}));
    })
    .delete('/api/timer/v1/def', async (c) => {
      const source = c.req.query('id') ? c.req.query() : await readJson(c.req);
      const ref = await bind(TimerRefDto, source);
      const timers = timersOf(c);
      await timerOf(timers, ref);
      await timers.delete(ref.id);
      return c.json(ok({}));
    })
    .get('/api/timer/v1/defs', async (c) => {
      const q = await bind(GetAppTimersDto, c.req.query());
      const { items, total } = await timersOf(c).listNumbered({ app: q.app, ...offsetOf(q) });
      return c.json(ok({ data: items.map(goTimer), total }));
    })
    .get('/api/timer/v1/defsByName', async (c) => {
      const q = await bind(GetTimersByNameDto, c.req.query());
      const { items, total } = await timersOf(c).listNumbered({
        app: q.app,
        nameContains: q.fuzzyName || undefined,
        name: q.name || undefined,
        ...offsetOf(q),
      });
      return c.json(ok({ data: items.map(goTimer), total }));
    })
    .post('/api/timer/v1/enable', async (c) => {
      const ref = await bind(TimerRefDto, await readJson(c.req));
      const timers = timersOf(c);
      await timerOf(timers, ref);
      await timers.enable(ref.id);
      return c.json(ok({}));
    })
    .post('/api/timer/v1/unable', async (c) => {
      const ref = await bind(TimerRefDto, await readJson(c.req));
      const timers = timersOf(c);
      await timerOf(timers, ref);
      await timers.disable(ref.id);
      return c.json(ok({}));
    })
    .get('/api/task/v1/records', async (c) => {
      const q = await bind(GetTasksDto, c.req.query());
      const { items, total } = await timersOf(c).listTasksNumbered({
        timerId: q.timerID,
        statuses: RECORD_STATUSES,
        ...offsetOf(q),
      });
      return c.json(ok({ total, data: items.map(goTask) }));
    });

  app.onError((err, c) => respondCompatError(c, err, logger));
  return app;
}
