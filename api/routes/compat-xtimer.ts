import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { findCronProblem } from '../../src/domain/cron-schedule.js';
import type { Task, Timer, TimerDraft } from '../../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { Logger } from '../../src/observability/logger.js';
import type { TimerService } from '../../src/services/timer-service.js';
import type { ApiEnv } from '../auth.js';
import { errorHeaders, fromZodError, statusOf, toXtimerError } from '../errors.js';
import { CreateTimerSchema } from '../schemas/timer-schemas.js';

/**
 * Drop-in routes for clients of the Go xTimer: its DTOs and its `{code, msg, ...}`
 * envelope (code 0 = success), mapped onto the same TimerService as the native API.
 * On error `code` is the HTTP status and `msg` starts with the native error code.
 */

export interface CompatDeps {
  timers: TimerService;
  callbackTimeoutMs: number;
  logger?: Logger;
}

/** The paths this API answers: their errors (even a 413 or an unknown route) use its envelope. */
export const COMPAT_PATH = /^\/api\/(timer|task)\/v1\//;

/** An error in the Go envelope: `code` is the HTTP status, `msg` starts with the native error code. */
export function respondCompatError(c: Context, err: unknown, logger?: Logger): Response {
  const e = toXtimerError(err, logger);
  const status = statusOf(e.code);
  return c.json({ code: status, msg: `${e.code}: ${e.message}` }, status, errorHeaders(e));
}

/** Go xTimer timer status: 1 inactive ("unabled"), 2 active. */
const STATUS_TO_GO = { inactive: 1, active: 2 } as const;
/** Go xTimer task status: 0 not yet run, 1 succeeded, 2 failed; 3 skipped and 4 missed are ours. */
const TASK_STATUS_TO_GO = { pending: 0, running: 0, succeeded: 1, failed: 2, skipped: 3, missed: 4 } as const;

const HeaderValues = z.union([z.string(), z.array(z.string())]);

const CreateDto = z.object({
  app: z.string(),
  name: z.string(),
  cron: z.string(),
  creator: z.string().optional(),
  // Go clients send their zero value, 0, when no status is set; like the original, it means inactive.
  status: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  notifyHTTPParam: z.object({
    method: z.string().optional(),
    url: z.string(),
    header: z.record(z.string(), HeaderValues).nullish(),
    body: z.string().nullish(),
  }),
});

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
const IdDto = z.object({ id: IdValue });
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
const PageDto = z.object({
  pageIndex: pageField(1, 1_000_000_000),
  pageSize: pageField(10, 500),
});

/** Native validation, except that a 7-field cron (seconds first, year last) is allowed here. */
const CompatTimerSchema = CreateTimerSchema.extend({
  cron: z.string().superRefine((value, ctx) => {
    const problem = findCronProblem(value, { allowYear: true });
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: problem.field ? `${problem.field} field: ${problem.message}` : problem.message,
        params: { code: ErrorCode.INVALID_CRON },
      });
    }
  }),
});

function goTimer(t: Timer) {
  return {
    id: t.id,
    app: t.app,
    name: t.name,
    creator: '',
    status: STATUS_TO_GO[t.status],
    cron: t.cron,
    notifyHTTPParam: {
      method: t.callback.method,
      url: t.callback.url,
      header: Object.fromEntries(Object.entries(t.callback.headers).map(([k, v]) => [k, [v]])),
      body: t.callback.body ?? '',
    },
  };
}

function goTask(t: Task) {
  return {
    id: t.rowId,
    app: t.app,
    timerID: t.timerId,
    output: t.output ?? '',
    runTimer: new Date(t.runAt).toISOString(),
    costTime: t.firedAt === null ? 0 : t.firedAt - t.runAt,
    status: TASK_STATUS_TO_GO[t.status],
  };
}

async function parse<T extends z.ZodTypeAny>(schema: T, value: unknown): Promise<z.infer<T>> {
  const result = await schema.safeParseAsync(value);
  if (!result.success) throw fromZodError(result.error, 'body');
  return result.data;
}

async function readJson(req: { json(): Promise<unknown> }): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw new XtimerError(ErrorCode.INVALID_JSON, 'request body is not valid JSON');
  }
}

export function compatRoutes({ timers: service, callbackTimeoutMs, logger }: CompatDeps) {
  const ok = <T extends object>(extra: T) => ({ code: 0, msg: 'ok', ...extra });
  // The same services, as the caller's actor: the same access rules and limits as the native API.
  const timersOf = (c: { var: ApiEnv['Variables'] }) => service.as(c.var.actor);

  const app = new Hono<ApiEnv>()
    .post('/api/timer/v1/def', async (c) => {
      const dto = await parse(CreateDto, await readJson(c.req));
      const headers = Object.fromEntries(
        Object.entries(dto.notifyHTTPParam.header ?? {}).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(', ') : v,
        ]),
      );
      const input = await parse(CompatTimerSchema, {
        app: dto.app,
        name: dto.name,
        cron: dto.cron,
        status: dto.status === 2 ? 'active' : 'inactive',
        callback: {
          url: dto.notifyHTTPParam.url,
          method: (dto.notifyHTTPParam.method ?? 'POST').toUpperCase(),
          headers,
          body: dto.notifyHTTPParam.body ?? null,
        },
      });
      const draft: TimerDraft = {
        ...input,
        callback: { ...input.callback, body: input.callback.body ?? null, timeoutMs: callbackTimeoutMs },
      };
      const timer = await timersOf(c).create(draft);
      return c.json(ok({ id: timer.id }));
    })
    .get('/api/timer/v1/def', async (c) => {
      const { id } = await parse(IdDto, c.req.query());
      return c.json(ok({ data: goTimer(await timersOf(c).get(id)) }));
    })
    .delete('/api/timer/v1/def', async (c) => {
      const source = c.req.query('id') ? c.req.query() : await readJson(c.req);
      const { id } = await parse(IdDto, source);
      await timersOf(c).delete(id);
      return c.json(ok({}));
    })
    .get('/api/timer/v1/defs', async (c) => {
      const q = c.req.query();
      const app = await parse(z.string().min(1, 'app is required'), q.app ?? '');
      const { pageIndex, pageSize } = await parse(PageDto, q);
      const { items, total } = await timersOf(c).listNumbered(app, (pageIndex - 1) * pageSize, pageSize);
      return c.json(ok({ data: items.map(goTimer), total }));
    })
    .get('/api/timer/v1/defsByName', async (c) => {
      const { app, name } = await parse(
        z.object({ app: z.string().min(1), name: z.string().min(1) }),
        c.req.query(),
      );
      const timer = await timersOf(c).findByName(app, name);
      return c.json(ok({ data: timer ? [goTimer(timer)] : [], total: timer ? 1 : 0 }));
    })
    .post('/api/timer/v1/enable', async (c) => {
      const { id } = await parse(IdDto, await readJson(c.req));
      await timersOf(c).enable(id);
      return c.json(ok({}));
    })
    .post('/api/timer/v1/unable', async (c) => {
      const { id } = await parse(IdDto, await readJson(c.req));
      await timersOf(c).disable(id);
      return c.json(ok({}));
    })
    .get('/api/task/v1/records', async (c) => {
      const q = c.req.query();
      const { timerID } = await parse(z.object({ timerID: IdValue }), q);
      const { pageIndex, pageSize } = await parse(PageDto, q);
      const { items, total } = await timersOf(c).listTasksNumbered(
        timerID,
        (pageIndex - 1) * pageSize,
        pageSize,
      );
      return c.json(ok({ data: items.map(goTask), total }));
    });

  app.onError((err, c) => respondCompatError(c, err, logger));
  return app;
}
