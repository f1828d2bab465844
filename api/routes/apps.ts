import { createRoute, type z } from '@hono/zod-openapi';
import {
  AppInfoSchema,
  AppListSchema,
  AppParamSchema,
  CreateAppSchema,
  IssuedAppSchema,
  RotateSchema,
  UpdateAppSchema,
} from '../../http/schemas/app-schemas.js';
import { ErrorSchema } from '../../http/schemas/common-schemas.js';
import type { AppInfo, AppService, IssuedApp } from '../../src/services/apps/app-service.js';
import { type ApiEnv, secured } from '../auth.js';
import { newRouter } from '../router.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const denied = {
  401: json(ErrorSchema, 'No valid bearer token'),
  403: json(ErrorSchema, 'Not allowed for this token'),
};
/** Sent with every answer that holds a key or a secret. */
const noStore = {
  'Cache-Control': {
    description: 'no-store: the answer holds a credential',
    schema: { type: 'string' as const, enum: ['no-store'] },
  },
};
const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});

const routes = {
  create: createRoute({
    method: 'post',
    path: '/apps',
    tags: ['apps'],
    summary: 'Create an app (admin): returns its API key and signing secret, once',
    ...secured,
    request: jsonBody(CreateAppSchema),
    responses: {
      201: { ...json(IssuedAppSchema, 'Created, with its credentials'), headers: noStore },
      400: json(ErrorSchema, 'Invalid input'),
      ...denied,
      409: json(ErrorSchema, 'The app exists'),
    },
  }),
  list: createRoute({
    method: 'get',
    path: '/apps',
    tags: ['apps'],
    summary: 'List the apps (admin)',
    ...secured,
    responses: { 200: json(AppListSchema, 'Every app, by name'), ...denied },
  }),
  get: createRoute({
    method: 'get',
    path: '/apps/{app}',
    tags: ['apps'],
    summary: 'An app (admin, or the app itself)',
    ...secured,
    request: { params: AppParamSchema },
    responses: { 200: json(AppInfoSchema, 'The app'), ...denied, 404: json(ErrorSchema, 'No such app') },
  }),
  update: createRoute({
    method: 'patch',
    path: '/apps/{app}',
    tags: ['apps'],
    summary: "Set an app's default failure notification (admin, or the app itself)",
    ...secured,
    request: { params: AppParamSchema, ...jsonBody(UpdateAppSchema) },
    responses: {
      200: json(AppInfoSchema, 'The app'),
      400: json(ErrorSchema, 'Invalid input, or a notify URL the SSRF guard refuses (TARGET_BLOCKED)'),
      ...denied,
      403: json(ErrorSchema, 'Another app, or a key in its grace period (RETIRED_KEY)'),
      404: json(ErrorSchema, 'No such app'),
    },
  }),
  rotate: createRoute({
    method: 'post',
    path: '/apps/{app}/rotate',
    tags: ['apps'],
    summary:
      'Issue a new API key or signing secret (admin, or the app itself with its current key); the old one stays valid for a grace period',
    ...secured,
    request: { params: AppParamSchema, ...jsonBody(RotateSchema) },
    responses: {
      200: { ...json(IssuedAppSchema, 'The new key or secret'), headers: noStore },
      400: json(ErrorSchema, 'Invalid input'),
      ...denied,
      403: json(ErrorSchema, 'Another app, or a key in its grace period (RETIRED_KEY)'),
      404: json(ErrorSchema, 'No such app'),
    },
  }),
};

function presentApp(a: AppInfo | IssuedApp) {
  return {
    ...a,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    previousKeyValidUntil: a.previousKeyValidUntil?.toISOString() ?? null,
    previousSecretValidUntil: a.previousSecretValidUntil?.toISOString() ?? null,
  };
}

/** An answer holding a key or secret: no cache, proxy or browser history may keep it. */
const NOT_STORED = { 'cache-control': 'no-store' };

/** The apps API (docs/security.md). Who may do what is decided in AppService. */
export function appRoutes(apps: AppService) {
  return newRouter<ApiEnv>()
    .openapi(routes.create, async (c) =>
      c.json(presentApp(await apps.create(c.var.actor, c.req.valid('json').app)), 201, NOT_STORED),
    )
    .openapi(routes.list, async (c) => c.json({ items: (await apps.list(c.var.actor)).map(presentApp) }, 200))
    .openapi(routes.get, async (c) =>
      c.json(presentApp(await apps.get(c.var.actor, c.req.valid('param').app)), 200),
    )
    .openapi(routes.update, async (c) => {
      const { notify } = c.req.valid('json');
      return c.json(presentApp(await apps.setNotify(c.var.actor, c.req.valid('param').app, notify)), 200);
    })
    .openapi(routes.rotate, async (c) => {
      const { rotate, graceSeconds } = c.req.valid('json');
      const issued = await apps.rotate(c.var.actor, c.req.valid('param').app, rotate, graceSeconds);
      return c.json(presentApp(issued), 200, NOT_STORED);
    });
}
