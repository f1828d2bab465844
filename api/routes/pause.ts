import { createRoute, type z } from '@hono/zod-openapi';
import { presentServicePause, presentServicePaused, presentServiceResumed } from '../../http/presenters.js';
import { ErrorSchema } from '../../http/schemas/common-schemas.js';
import {
  PauseAllSchema,
  ServicePausedSchema,
  ServicePauseStateSchema,
  ServiceResumedSchema,
} from '../../http/schemas/pause-schemas.js';
import type { ServicePause } from '../../src/services/apps/service-pause.js';
import { type ApiEnv, secured } from '../auth.js';
import { newRouter } from '../router.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const denied = {
  401: json(ErrorSchema, 'No valid bearer token'),
  403: json(ErrorSchema, 'Not the admin token (an app key)'),
};

const routes = {
  get: createRoute({
    method: 'get',
    path: '/pause',
    tags: ['service'],
    summary: 'Whether everything is paused, and why (admin)',
    ...secured,
    responses: { 200: json(ServicePauseStateSchema, 'The pause, or {"paused": false}'), ...denied },
  }),
  pause: createRoute({
    method: 'post',
    path: '/pause',
    tags: ['service'],
    summary: 'Pause everything, every app, with a note (admin): the emergency brake',
    description:
      'Within about 2 s every executor records the runs that fall due, and those already queued, as skipped with the error "paused: <note>" instead of calling them; backfills likewise. Run now and retry still go. Pausing again changes the note and keeps pausedAt. Audited as pause_all.',
    ...secured,
    request: { body: { content: { 'application/json': { schema: PauseAllSchema } }, required: true } },
    responses: {
      200: json(ServicePausedSchema, 'Paused'),
      400: json(ErrorSchema, 'No note, or an empty, overlong or multi-line one'),
      ...denied,
    },
  }),
  resume: createRoute({
    method: 'post',
    path: '/resume',
    tags: ['service'],
    summary: 'End the pause of everything (admin); nothing to end is no error',
    description:
      'Runs due from then on are called again (within about 2 s); the runs skipped meanwhile stay skipped. No body is needed. Audited as resume_all.',
    ...secured,
    responses: { 200: json(ServiceResumedSchema, 'Not paused, and the pause that ended'), ...denied },
  }),
};

/** The emergency brake (docs/operating.md "Emergency brake"): the admin's alone, decided in ServicePause.as. */
export function pauseRoutes(servicePause: ServicePause) {
  return newRouter<ApiEnv>()
    .openapi(routes.get, async (c) =>
      c.json(presentServicePause(await servicePause.as(c.var.actor).get()), 200),
    )
    .openapi(routes.pause, async (c) => {
      const paused = await servicePause.as(c.var.actor).pause(c.req.valid('json').note);
      return c.json(presentServicePaused(paused), 200);
    })
    .openapi(routes.resume, async (c) =>
      c.json(presentServiceResumed(await servicePause.as(c.var.actor).resume()), 200),
    );
}
