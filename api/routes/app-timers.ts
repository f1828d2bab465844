import { randomUUID } from 'node:crypto';
import { createRoute, type z } from '@hono/zod-openapi';
import { presentTimer } from '../../http/presenters.js';
import {
  ApplyResultSchema,
  ApplySchema,
  AppPathSchema,
  TimerNameParamSchema,
  UpsertTimerSchema,
} from '../../http/schemas/apply-schemas.js';
import { ErrorSchema } from '../../http/schemas/common-schemas.js';
import { IfMatchHeaderSchema, TimerSchema } from '../../http/schemas/timer-schemas.js';
import { draftFrom } from '../../http/timer-draft.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { type ApiEnv, secured } from '../auth.js';
import { ifMatchOf, timerHeaders } from '../etag.js';
import { newRouter } from '../router.js';

export interface AppTimerRoutesDeps {
  timers: TimerService;
  callbackTimeoutMs: number;
}

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});
const etag = {
  ETag: { description: "The timer's version, for If-Match", schema: { type: 'string' as const } },
};
const denied = {
  401: json(ErrorSchema, 'No valid bearer token'),
  403: json(ErrorSchema, "Another app's timers"),
};
/** A definition setting or changing notify, sent with a key in its grace period. */
const retired = {
  403: json(
    ErrorSchema,
    "Another app's timers; RETIRED_KEY: a key in its grace period may not set or change notify",
  ),
};
const limited = { 429: json(ErrorSchema, 'Rate limit of the app key reached (see Retry-After)') };

const routes = {
  upsert: createRoute({
    method: 'put',
    path: '/apps/{app}/timers/{name}',
    tags: ['timers as code'],
    ...secured,
    summary: 'Create or replace the app’s timer of that name (idempotent)',
    description:
      'Creates the timer (201) or replaces its whole definition (200). A definition equal to the stored one ' +
      'changes nothing: 200, no version bump, no re-plan, no audit entry. With If-Match, the timer must exist ' +
      'at that version (412 VERSION_CONFLICT otherwise, and nothing changes).',
    request: { params: TimerNameParamSchema, headers: IfMatchHeaderSchema, ...jsonBody(UpsertTimerSchema) },
    responses: {
      200: { ...json(TimerSchema, 'Replaced, or already so'), headers: etag },
      201: { ...json(TimerSchema, 'Created'), headers: etag },
      400: json(ErrorSchema, 'Invalid input'),
      ...denied,
      ...retired,
      409: json(ErrorSchema, 'MAX_TIMERS_PER_APP reached, or the app is busy (APP_BUSY)'),
      412: json(ErrorSchema, 'If-Match names another version (VERSION_CONFLICT)'),
      413: json(ErrorSchema, 'Body over 1 MiB'),
      ...limited,
    },
  }),
  apply: createRoute({
    method: 'post',
    path: '/apps/{app}/apply',
    tags: ['timers as code'],
    ...secured,
    summary: 'Make the app’s timers the set given: a plan, applied all or nothing',
    description:
      'Compares the set with the app’s timers by name: each is `create`, `update` (with its `changes`) or ' +
      '`unchanged`; with `prune`, the app’s other timers are `delete`. With `dryRun` nothing changes (it counts ' +
      'against the app key’s rate limit all the same), and the answer’s `planId` sent back with the apply ' +
      'carries out that plan or none; otherwise ' +
      'the plan is carried out in one transaction under the app’s mutex, and its audit entries share the ' +
      "answer's batchId. An invalid timer fails the whole request naming its index (`timers.<i>.<field>`). " +
      'At most 5,000 timers and 16 MiB.',
    request: { params: AppPathSchema, ...jsonBody(ApplySchema) },
    responses: {
      200: json(ApplyResultSchema, 'The plan, and whether it was applied'),
      400: json(ErrorSchema, 'Invalid input, naming the timer by its index'),
      ...denied,
      ...retired,
      409: json(
        ErrorSchema,
        'MAX_TIMERS_PER_APP would be passed, a timer cannot be re-activated, or the app is busy',
      ),
      412: json(ErrorSchema, 'The plan is no longer the one `planId` names (VERSION_CONFLICT)'),
      413: json(ErrorSchema, 'Body over 16 MiB'),
      ...limited,
    },
  }),
};

/** Timers as code (docs/timers-as-code.md): the idempotent PUT by name and the declarative apply. */
export function appTimerRoutes({ timers: service, callbackTimeoutMs }: AppTimerRoutesDeps) {
  return newRouter<ApiEnv>()
    .openapi(routes.upsert, async (c) => {
      const { app, name } = c.req.valid('param');
      const body = c.req.valid('json');
      if (body.name !== undefined && body.name !== name) {
        throw new XtimerError(ErrorCode.VALIDATION_FAILED, "name: must be the path's name when given", [
          { path: 'name', message: "must be the path's name when given" },
        ]);
      }
      const draft = draftFrom({ ...body, app, name }, callbackTimeoutMs);
      const ifMatch = ifMatchOf(c.req.valid('header')['if-match']);
      const { timer, outcome } = await service.as(c.var.actor).asCode.upsert(draft, ifMatch);
      if (outcome === 'created') {
        return c.json(presentTimer(timer), 201, {
          ...timerHeaders(timer),
          location: `/api/v1/timers/${timer.id}`,
        });
      }
      return c.json(presentTimer(timer), 200, timerHeaders(timer));
    })
    .openapi(routes.apply, async (c) => {
      const { app } = c.req.valid('param');
      const { timers, prune, dryRun, planId } = c.req.valid('json');
      const batchId = randomUUID();
      const drafts = timers.map((t) => draftFrom({ ...t, app }, callbackTimeoutMs));
      const result = await service
        .as(c.var.actor, { batchId })
        .asCode.apply(app, drafts, { prune, dryRun, planId });
      const changed = result.applied && result.plan.some((s) => s.action !== 'unchanged');
      return c.json({ ...result, ...(changed ? { batchId } : {}) }, 200);
    });
}
