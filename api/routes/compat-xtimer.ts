import { Hono } from 'hono';
import type { z } from 'zod';
import { fromZodError } from '../../http/errors.js';
import { draftFrom } from '../../http/timer-draft.js';
import type { Timer } from '../../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { Logger } from '../../src/observability/logger.js';
import type { ScopedTimers, TimerService } from '../../src/services/timers/timer-service.js';
import type { ApiEnv } from '../auth.js';
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
import { BindError, envelope, respondCompatError } from './compat-xtimer-envelope.js';

/**
 * Drop-in routes for clients of the Go xTimer (docs/migrating-from-go-xtimer.md):
 * its routes, DTOs and `{code, msg, err}` envelope, over the same TimerService as the
 * native API. Errors answer as the original does: 400 when the request does not bind,
 * HTTP 200 with `code: -1` otherwise; `msg` starts with the native error code.
 */

export interface CompatDeps {
  timers: TimerService;
  callbackTimeoutMs: number;
  logger?: Logger;
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
  const timer = await timers.definitions.get(ref.id);
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
      const timer = await timersOf(c).definitions.create(draft);
      return c.json(ok({ id: timer.id }));
    })
    .get('/api/timer/v1/def', async (c) => {
      const ref = await bind(TimerRefDto, c.req.query());
      return c.json(ok({ data: goTimer(await timerOf(timersOf(c), ref)) }));
    })
    .patch('/api/timer/v1/def', async (c) => {
      const dto = await bind(UpdateTimerDto, await readJson(c.req));
      await timerOf(timersOf(c), dto);
      const patch = await check(CompatUpdateSchema, {
        name: dto.name || undefined,
        cron: dto.cron || undefined,
        callback: dto.notifyHTTPParam ? callbackFromGo(dto.notifyHTTPParam) : undefined,
      });
      // One request, one call of the app's rate limit, though it may change the definition and the status.
      const timers = await service.asPrepaid(c.var.actor, 1);
      // The definition first, so that a refused change (a name taken) leaves the status alone too.
      if (patch.name !== undefined || patch.cron !== undefined || patch.callback !== undefined) {
        await timers.definitions.update(dto.id, {
          ...patch,
          ...(dto.cron ? { compatCron: dto.cron.trim() } : {}),
        });
      }
      if (dto.status === 2) await timers.lifecycle.enable(dto.id);
      if (dto.status === 1) await timers.lifecycle.disable(dto.id);
      return c.json(ok({}));
    })
    .delete('/api/timer/v1/def', async (c) => {
      const source = c.req.query('id') ? c.req.query() : await readJson(c.req);
      const ref = await bind(TimerRefDto, source);
      const timers = timersOf(c);
      await timerOf(timers, ref);
      await timers.definitions.delete(ref.id);
      return c.json(ok({}));
    })
    .get('/api/timer/v1/defs', async (c) => {
      const q = await bind(GetAppTimersDto, c.req.query());
      const { items, total } = await timersOf(c).definitions.listNumbered({ app: q.app, ...offsetOf(q) });
      return c.json(ok({ data: items.map(goTimer), total }));
    })
    .get('/api/timer/v1/defsByName', async (c) => {
      const q = await bind(GetTimersByNameDto, c.req.query());
      const { items, total } = await timersOf(c).definitions.listNumbered({
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
      await timers.lifecycle.enable(ref.id);
      return c.json(ok({}));
    })
    .post('/api/timer/v1/unable', async (c) => {
      const ref = await bind(TimerRefDto, await readJson(c.req));
      const timers = timersOf(c);
      await timerOf(timers, ref);
      await timers.lifecycle.disable(ref.id);
      return c.json(ok({}));
    })
    .get('/api/task/v1/records', async (c) => {
      const q = await bind(GetTasksDto, c.req.query());
      const { items, total } = await timersOf(c).history.listNumbered({
        timerId: q.timerID,
        statuses: RECORD_STATUSES,
        ...offsetOf(q),
      });
      return c.json(ok({ total, data: items.map(goTask) }));
    });

  app.onError((err, c) => respondCompatError(c, err, logger));
  return app;
}
