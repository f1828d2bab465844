import { createRoute, z } from '@hono/zod-openapi';
import { fromZodError } from '../../http/errors.js';
import {
  presentBackfill,
  presentCalendar,
  presentExplained,
  presentPreview,
  presentQueuedRun,
  presentRunDetail,
  presentTask,
  presentTimer,
} from '../../http/presenters.js';
import { AppParamSchema } from '../../http/schemas/app-schemas.js';
import {
  BackfillParamSchema,
  BackfillPreviewSchema,
  BackfillSchema,
  StartBackfillSchema,
} from '../../http/schemas/backfill-schemas.js';
import {
  CalendarParamSchema,
  CalendarSchema,
  PutCalendarSchema,
} from '../../http/schemas/calendar-schemas.js';
import { ErrorSchema, page } from '../../http/schemas/common-schemas.js';
import {
  ExplainedPreviewSchema,
  PreviewSchema,
  SchedulePreviewQuerySchema,
  TimerPreviewQuerySchema,
} from '../../http/schemas/preview-schemas.js';
import {
  ListTasksQuerySchema,
  QueuedRunSchema,
  RunDetailSchema,
  TaskIdParamSchema,
  TaskSchema,
} from '../../http/schemas/run-schemas.js';
import { PauseSchema } from '../../http/schemas/timer-field-schemas.js';
import {
  CreateTimerBatchSchema,
  CreateTimerSchema,
  IdParamSchema,
  IfMatchHeaderSchema,
  ListTimersQuerySchema,
  TimerBatchSchema,
  TimerSchema,
  UpdateTimerSchema,
} from '../../http/schemas/timer-schemas.js';
import { draftFrom, patchFrom } from '../../http/timer-draft.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { type ApiEnv, secured } from '../auth.js';
import { ifMatchOf, timerHeaders } from '../etag.js';
import { newRouter } from '../router.js';

export interface TimerRoutesDeps {
  timers: TimerService;
  callbackTimeoutMs: number;
}

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const denied = {
  401: json(ErrorSchema, 'No valid bearer token'),
  403: json(ErrorSchema, "Another app's timer, or another app named"),
};
const limited = { 429: json(ErrorSchema, 'Rate limit of the app key reached (see Retry-After)') };
/** A definition setting or changing notify, sent with a key in its grace period. */
const retired = {
  403: json(
    ErrorSchema,
    "Another app's timer, or another app named; RETIRED_KEY: a key in its grace period may not set or change notify",
  ),
};
const errors = {
  400: json(ErrorSchema, 'Invalid input'),
  ...denied,
  404: json(ErrorSchema, 'No such timer'),
};
const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});
/**
 * The Pause body, documented but not validated by the router: a zod schema here would make
 * `content-type: application/json` with no body a 400, and `optionalBody` reads that as `{}`.
 */
const pauseBody = {
  body: {
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Pause' } } },
    required: false,
  },
};

/** A single timer's answer: the timer, with its version as ETag. */
const timerJson = (description: string) => ({
  ...json(TimerSchema, description),
  headers: {
    ETag: { description: "The timer's version, for If-Match", schema: { type: 'string' as const } },
  },
});
const conflict = { 412: json(ErrorSchema, 'If-Match names another version (VERSION_CONFLICT)') };

const TimerPage = page(TimerSchema, 'TimerPage');

const AppTimersChangedSchema = z
  .object({
    app: z.string(),
    changed: z.number().int().openapi({ description: 'How many timers this paused or resumed.' }),
  })
  .openapi('AppTimersChanged');

/** An optional JSON body (a disable's pause): none, or an empty one, is `{}`. */
async function optionalBody<T extends z.ZodTypeAny>(
  req: { text(): Promise<string> },
  schema: T,
): Promise<z.output<T>> {
  const text = await req.text();
  let raw: unknown = {};
  if (text.trim() !== '') {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new XtimerError(ErrorCode.INVALID_JSON, 'request body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error, 'body');
  return parsed.data;
}
const TaskPage = page(TaskSchema, 'TaskPage');
/** A backfill's range: what a start, and its preview, read. */
const backfillBody = { content: { 'application/json': { schema: StartBackfillSchema } }, required: true };

const routes = {
  create: createRoute({
    method: 'post',
    path: '/timers',
    tags: ['timers'],
    ...secured,
    summary: 'Create a timer',
    request: jsonBody(CreateTimerSchema),
    responses: {
      201: timerJson('Created'),
      400: errors[400],
      ...denied,
      ...retired,
      409: json(ErrorSchema, 'The app already has a timer of that name, or MAX_TIMERS_PER_APP timers'),
      413: json(ErrorSchema, 'Body over 1 MiB'),
      ...limited,
    },
  }),
  createBatch: createRoute({
    method: 'post',
    path: '/timers/batch',
    tags: ['timers'],
    ...secured,
    summary: 'Create up to 1,000 timers, all or nothing',
    description:
      'One invalid timer fails the whole request with 400 (409 for a name taken), naming it by its index ' +
      '(`timers.<index>` in the message and details), and nothing is stored. The timers are created in one ' +
      'transaction, in the order sent; the body is at most 1 MiB.',
    request: jsonBody(CreateTimerBatchSchema),
    responses: {
      201: json(TimerBatchSchema, 'Created'),
      400: errors[400],
      ...denied,
      ...retired,
      409: json(
        ErrorSchema,
        'An app already has a timer of one of the names, or would pass MAX_TIMERS_PER_APP timers',
      ),
      413: json(ErrorSchema, 'Body over 1 MiB'),
      ...limited,
    },
  }),
  list: createRoute({
    method: 'get',
    path: '/timers',
    tags: ['timers'],
    ...secured,
    summary: 'List timers (by app, status, labels and name, id order, cursor-paginated)',
    request: { query: ListTimersQuerySchema },
    responses: { 200: json(TimerPage, 'A page of timers'), 400: errors[400], ...denied },
  }),
  get: createRoute({
    method: 'get',
    path: '/timers/{id}',
    tags: ['timers'],
    ...secured,
    summary: 'Get a timer',
    request: { params: IdParamSchema },
    responses: { 200: timerJson('The timer'), ...errors },
  }),
  update: createRoute({
    method: 'patch',
    path: '/timers/{id}',
    tags: ['timers'],
    ...secured,
    summary: 'Change a timer (a new cron or timezone re-plans its future runs)',
    request: { params: IdParamSchema, headers: IfMatchHeaderSchema, ...jsonBody(UpdateTimerSchema) },
    responses: {
      200: timerJson('The changed timer'),
      ...errors,
      ...retired,
      409: json(ErrorSchema, 'Name taken'),
      ...conflict,
      ...limited,
    },
  }),
  remove: createRoute({
    method: 'delete',
    path: '/timers/{id}',
    tags: ['timers'],
    ...secured,
    summary: 'Delete a timer and cancel its pending runs',
    request: { params: IdParamSchema, headers: IfMatchHeaderSchema },
    responses: { 204: { description: 'Deleted' }, ...errors, ...conflict, ...limited },
  }),
  enable: createRoute({
    method: 'post',
    path: '/timers/{id}/enable',
    tags: ['timers'],
    ...secured,
    summary: 'Activate a timer; its runs are planned at once',
    request: { params: IdParamSchema },
    responses: { 200: timerJson('The active timer'), ...errors, ...limited },
  }),
  disable: createRoute({
    method: 'post',
    path: '/timers/{id}/disable',
    tags: ['timers'],
    ...secured,
    summary: 'Deactivate a timer; nothing due after this fires',
    description:
      'The body is optional: {"note": "why", "until": "2026-12-01T09:00:00Z"} (the Pause schema). The timer JSON then shows pausedNote, pausedAt and pausedUntil; at `until` the timer resumes by itself, once cluster-wide, audited as actor `system`.',
    request: { params: IdParamSchema, ...pauseBody },
    responses: { 200: timerJson('The inactive timer'), ...errors, ...limited },
  }),
  putCalendar: createRoute({
    method: 'put',
    path: '/apps/{app}/calendars/{name}',
    tags: ['calendars'],
    ...secured,
    summary:
      "Create or replace a calendar of dates the app's timers may skip; re-plans the future runs of every timer naming it",
    request: { params: CalendarParamSchema, ...jsonBody(PutCalendarSchema) },
    responses: {
      200: json(CalendarSchema, 'The calendar, replaced'),
      201: json(CalendarSchema, 'The calendar, created'),
      ...errors,
      ...limited,
    },
  }),
  getCalendar: createRoute({
    method: 'get',
    path: '/apps/{app}/calendars/{name}',
    tags: ['calendars'],
    ...secured,
    summary: 'A calendar',
    request: { params: CalendarParamSchema },
    responses: { 200: json(CalendarSchema, 'The calendar'), ...errors },
  }),
  listCalendars: createRoute({
    method: 'get',
    path: '/apps/{app}/calendars',
    tags: ['calendars'],
    ...secured,
    summary: "The app's calendars, by name",
    request: { params: AppParamSchema },
    responses: { 200: json(z.object({ items: z.array(CalendarSchema) }), 'The calendars'), ...errors },
  }),
  deleteCalendar: createRoute({
    method: 'delete',
    path: '/apps/{app}/calendars/{name}',
    tags: ['calendars'],
    ...secured,
    summary: 'Delete a calendar no timer names (409 CALENDAR_IN_USE naming the timers otherwise)',
    request: { params: CalendarParamSchema },
    responses: { 204: { description: 'Deleted' }, ...errors, 409: json(ErrorSchema, 'Timers name it') },
  }),
  pauseApp: createRoute({
    method: 'post',
    path: '/apps/{app}/pause',
    tags: ['timers'],
    ...secured,
    summary: "Disable all of an app's active timers at once, with one note (and until)",
    description: 'The body is optional, as for a disable: {"note", "until"} (the Pause schema).',
    request: { params: AppParamSchema, ...pauseBody },
    responses: { 200: json(AppTimersChangedSchema, 'How many were paused'), ...errors, ...limited },
  }),
  resumeApp: createRoute({
    method: 'post',
    path: '/apps/{app}/resume',
    tags: ['timers'],
    ...secured,
    summary: "Enable all of an app's disabled timers at once",
    request: { params: AppParamSchema },
    responses: { 200: json(AppTimersChangedSchema, 'How many were resumed'), ...errors, ...limited },
  }),
  tasks: createRoute({
    method: 'get',
    path: '/timers/{id}/tasks',
    tags: ['tasks'],
    ...secured,
    summary: "A timer's runs, newest first (pending and missed included)",
    request: { params: IdParamSchema, query: ListTasksQuerySchema },
    responses: { 200: json(TaskPage, 'A page of runs'), ...errors },
  }),
  task: createRoute({
    method: 'get',
    path: '/timers/{id}/tasks/{taskId}',
    tags: ['tasks'],
    ...secured,
    summary: 'One run: its trigger and outcome, the request its attempts send and the latest answer',
    request: { params: TaskIdParamSchema },
    responses: {
      200: json(RunDetailSchema, 'The run, its request (secrets as ***) and its latest answer'),
      ...errors,
      404: json(ErrorSchema, 'No such timer, or no such run of it (TASK_NOT_FOUND)'),
    },
  }),
  trigger: createRoute({
    method: 'post',
    path: '/timers/{id}/trigger',
    tags: ['runs'],
    ...secured,
    summary: 'Run now: call the callback at once, whatever the timer’s status',
    description:
      'The run is listed with trigger "manual" and sends X-Xtimer-Trigger: manual; it ends like any run.',
    request: { params: IdParamSchema },
    responses: { 202: json(QueuedRunSchema, 'The run, queued'), ...errors, ...limited },
  }),
  retry: createRoute({
    method: 'post',
    path: '/timers/{id}/tasks/{taskId}/retry',
    tags: ['runs'],
    ...secured,
    summary: 'Call a failed or missed run again, as its next attempt, with the same task id',
    request: { params: TaskIdParamSchema },
    responses: {
      202: json(QueuedRunSchema, 'The run, queued again (trigger "retry")'),
      ...errors,
      404: json(ErrorSchema, 'No such timer, or no such run of it (TASK_NOT_FOUND)'),
      409: json(ErrorSchema, 'The run is not failed or missed (TASK_NOT_RETRYABLE)'),
      ...limited,
    },
  }),
  startBackfill: createRoute({
    method: 'post',
    path: '/timers/{id}/backfills',
    tags: ['runs'],
    ...secured,
    summary: "Run the schedule's runs over a past range [from, to), paced at BACKFILL_RATE",
    description:
      'At most 10,000 runs. Runs the history already has are left alone; the others are sent with X-Xtimer-Trigger: backfill, with the same task ids, claims and fencing as scheduled runs.',
    request: { params: IdParamSchema, body: backfillBody },
    responses: {
      202: json(BackfillSchema, 'The backfill, started'),
      ...errors,
      400: json(ErrorSchema, 'A to after now, an empty range, or more than 10,000 runs (BACKFILL_TOO_LARGE)'),
      409: json(
        ErrorSchema,
        'Another backfill of the timer is under way over part of the range (BACKFILL_OVERLAPS)',
      ),
      ...limited,
    },
  }),
  previewBackfill: createRoute({
    method: 'post',
    path: '/timers/{id}/backfills/preview',
    tags: ['runs'],
    ...secured,
    summary: 'What a backfill over [from, to) would run, changing nothing; refused as a start would be',
    request: { params: IdParamSchema, body: backfillBody },
    responses: { 200: json(BackfillPreviewSchema, 'Its runs, and those it would send'), ...errors },
  }),
  listBackfills: createRoute({
    method: 'get',
    path: '/timers/{id}/backfills',
    tags: ['runs'],
    ...secured,
    summary: "The timer's backfills, newest first (the latest 20)",
    request: { params: IdParamSchema },
    responses: { 200: json(z.object({ items: z.array(BackfillSchema) }), 'Its backfills'), ...errors },
  }),
  backfill: createRoute({
    method: 'get',
    path: '/timers/{id}/backfills/{backfillId}',
    tags: ['runs'],
    ...secured,
    summary: "A backfill's progress: runs planned, sent, done and failed",
    request: { params: BackfillParamSchema },
    responses: {
      200: json(BackfillSchema, 'The backfill'),
      ...errors,
      404: json(ErrorSchema, 'No such timer, or no such backfill of it (BACKFILL_NOT_FOUND)'),
    },
  }),
  cancelBackfill: createRoute({
    method: 'delete',
    path: '/timers/{id}/backfills/{backfillId}',
    tags: ['runs'],
    ...secured,
    summary: 'Cancel a backfill: its runs not yet sent are removed; those sent end as they will',
    request: { params: BackfillParamSchema },
    responses: {
      200: json(BackfillSchema, 'The backfill, cancelled (or as it ended, if it had)'),
      ...errors,
      404: json(ErrorSchema, 'No such timer, or no such backfill of it (BACKFILL_NOT_FOUND)'),
      ...limited,
    },
  }),
  preview: createRoute({
    method: 'get',
    path: '/timers/{id}/preview',
    tags: ['timers'],
    ...secured,
    summary: 'The next fire times in the timer’s time zone (or of a cron and zone to try)',
    request: { params: IdParamSchema, query: TimerPreviewQuerySchema },
    responses: {
      200: {
        content: { 'application/json': { schema: z.union([PreviewSchema, ExplainedPreviewSchema]) } },
        description: 'Upcoming fire times (with explain=true: each nominal instant, skipped ones named)',
      },
      ...errors,
      400: json(ErrorSchema, 'Invalid input, or a schedule too costly to evaluate (CRON_TOO_COSTLY)'),
      ...limited,
    },
  }),
  previewSchedule: createRoute({
    method: 'get',
    path: '/preview',
    tags: ['timers'],
    ...secured,
    summary:
      'The next fire times of a cron and time zone, or an interval, not saved yet (checked as on create)',
    request: { query: SchedulePreviewQuerySchema },
    responses: {
      200: json(PreviewSchema, 'Upcoming fire times'),
      ...errors,
      400: json(ErrorSchema, 'Invalid input, or a schedule too costly to evaluate (CRON_TOO_COSTLY)'),
      ...limited,
    },
  }),
};

/**
 * The native timer API. Thin: validate, call the service as the caller's
 * actor (an app key reaches only its app's timers), shape the answer.
 */
export function timerRoutes({ timers: service, callbackTimeoutMs }: TimerRoutesDeps) {
  const timersOf = (c: { var: ApiEnv['Variables'] }) => service.as(c.var.actor);
  const router = newRouter<ApiEnv>();
  // Referenced by pauseBody, which names it rather than validating with it.
  router.openAPIRegistry.register('Pause', PauseSchema);
  return router
    .openapi(routes.create, async (c) => {
      const timer = await timersOf(c).definitions.create(draftFrom(c.req.valid('json'), callbackTimeoutMs));
      return c.json(presentTimer(timer), 201, timerHeaders(timer));
    })
    .openapi(routes.createBatch, async (c) => {
      const drafts = c.req.valid('json').timers.map((t) => draftFrom(t, callbackTimeoutMs));
      return c.json({ items: (await timersOf(c).definitions.createMany(drafts)).map(presentTimer) }, 201);
    })
    .openapi(routes.list, async (c) => {
      const { label, q: nameContains, ...q } = c.req.valid('query');
      const result = await timersOf(c).definitions.list({ ...q, labels: label, nameContains });
      return c.json({ items: result.items.map(presentTimer), nextCursor: result.nextCursor }, 200);
    })
    .openapi(routes.get, async (c) => {
      const timer = await timersOf(c).definitions.get(c.req.valid('param').id);
      return c.json(presentTimer(timer), 200, timerHeaders(timer));
    })
    .openapi(routes.update, async (c) => {
      const { id } = c.req.valid('param');
      const ifMatch = ifMatchOf(c.req.valid('header')['if-match']);
      const timer = await timersOf(c).definitions.update(id, patchFrom(c.req.valid('json')), ifMatch);
      return c.json(presentTimer(timer), 200, timerHeaders(timer));
    })
    .openapi(routes.remove, async (c) => {
      const ifMatch = ifMatchOf(c.req.valid('header')['if-match']);
      await timersOf(c).definitions.delete(c.req.valid('param').id, ifMatch);
      return c.body(null, 204);
    })
    .openapi(routes.enable, async (c) => {
      const timer = await timersOf(c).lifecycle.enable(c.req.valid('param').id);
      return c.json(presentTimer(timer), 200, timerHeaders(timer));
    })
    .openapi(routes.disable, async (c) => {
      const pause = await optionalBody(c.req, PauseSchema);
      const timer = await timersOf(c).lifecycle.disable(c.req.valid('param').id, pause);
      return c.json(presentTimer(timer), 200, timerHeaders(timer));
    })
    .openapi(routes.putCalendar, async (c) => {
      const { app, name } = c.req.valid('param');
      const { dates, description } = c.req.valid('json');
      const { calendar, created } = await timersOf(c).calendars.put(app, name, {
        dates,
        description: description ?? null,
      });
      return c.json(presentCalendar(calendar), created ? 201 : 200);
    })
    .openapi(routes.getCalendar, async (c) => {
      const { app, name } = c.req.valid('param');
      return c.json(presentCalendar(await timersOf(c).calendars.get(app, name)), 200);
    })
    .openapi(routes.listCalendars, async (c) => {
      const items = await timersOf(c).calendars.list(c.req.valid('param').app);
      return c.json({ items: items.map(presentCalendar) }, 200);
    })
    .openapi(routes.deleteCalendar, async (c) => {
      const { app, name } = c.req.valid('param');
      await timersOf(c).calendars.delete(app, name);
      return c.body(null, 204);
    })
    .openapi(routes.pauseApp, async (c) => {
      const { app } = c.req.valid('param');
      const pause = await optionalBody(c.req, PauseSchema);
      return c.json({ app, changed: await timersOf(c).appPause.pause(app, pause) }, 200);
    })
    .openapi(routes.resumeApp, async (c) => {
      const { app } = c.req.valid('param');
      return c.json({ app, changed: await timersOf(c).appPause.resume(app) }, 200);
    })
    .openapi(routes.tasks, async (c) => {
      const { id } = c.req.valid('param');
      const q = c.req.valid('query');
      const result = await timersOf(c).history.list(id, {
        limit: q.limit,
        statuses: q.status,
        fromMs: q.from,
        toMs: q.to,
        upcoming: q.upcoming,
        cursor: q.cursor,
      });
      return c.json({ items: result.items.map(presentTask), nextCursor: result.nextCursor }, 200);
    })
    .openapi(routes.trigger, async (c) =>
      c.json(presentQueuedRun(await timersOf(c).runs.trigger(c.req.valid('param').id)), 202),
    )
    .openapi(routes.task, async (c) => {
      const { id, taskId } = c.req.valid('param');
      return c.json(presentRunDetail(await timersOf(c).history.detail(id, taskId)), 200);
    })
    .openapi(routes.retry, async (c) => {
      const { id, taskId } = c.req.valid('param');
      return c.json(presentQueuedRun(await timersOf(c).runs.retry(id, taskId)), 202);
    })
    .openapi(routes.previewBackfill, async (c) => {
      const { from, to } = c.req.valid('json');
      return c.json(await timersOf(c).backfills.preview(c.req.valid('param').id, { from, to }), 200);
    })
    .openapi(routes.startBackfill, async (c) => {
      const { from, to, overlapPolicy } = c.req.valid('json');
      const started = await timersOf(c).backfills.start(c.req.valid('param').id, { from, to, overlapPolicy });
      return c.json(presentBackfill(started), 202);
    })
    .openapi(routes.listBackfills, async (c) => {
      const items = await timersOf(c).backfills.list(c.req.valid('param').id);
      return c.json({ items: items.map(presentBackfill) }, 200);
    })
    .openapi(routes.backfill, async (c) => {
      const { id, backfillId } = c.req.valid('param');
      return c.json(presentBackfill(await timersOf(c).backfills.get(id, backfillId)), 200);
    })
    .openapi(routes.cancelBackfill, async (c) => {
      const { id, backfillId } = c.req.valid('param');
      return c.json(presentBackfill(await timersOf(c).backfills.cancel(id, backfillId)), 200);
    })
    .openapi(routes.preview, async (c) => {
      const { count, from, explain } = c.req.valid('query');
      const id = c.req.valid('param').id;
      if (explain) {
        const { timer, runs } = await timersOf(c).previews.explain(id, count, from);
        return c.json(presentExplained(timer, runs), 200);
      }
      const { timer, runs } = await timersOf(c).previews.ofTimer(id, count, from);
      return c.json(presentPreview(timer, runs), 200);
    })
    .openapi(routes.previewSchedule, async (c) => {
      const { cron, every, offset, timezone, count, from, app, name } = c.req.valid('query');
      const schedule = {
        cron: cron ?? null,
        everyMs: every ?? null,
        offsetMs: offset ?? 0,
        timezone,
        ...(app === undefined ? {} : { app }),
        ...(name === undefined ? {} : { name }),
      };
      return c.json(
        presentPreview({ timezone }, await timersOf(c).previews.ofSchedule(schedule, count, from)),
        200,
      );
    });
}
