import { z } from '@hono/zod-openapi';
import { ROTATABLE } from '../../src/services/apps/app-service.js';
import { AppSchema } from './common-schemas.js';
import { NotifySchema } from './timer-field-schemas.js';

/** Request and response schemas of the apps API (docs/security.md). */

export const CreateAppSchema = z.strictObject({ app: AppSchema }).openapi('CreateApp');

export const AppParamSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' }, example: 'billing' }),
});

export const RotateSchema = z
  .strictObject({
    rotate: z.enum(ROTATABLE, { error: `must be one of ${ROTATABLE.join(', ')}` }).openapi({
      description: 'key: a new API key; secret: a new signing secret.',
    }),
    graceSeconds: z
      .number()
      .int('graceSeconds must be a whole number')
      .min(0, 'graceSeconds must be >= 0')
      .max(30 * 86_400, 'graceSeconds must be <= 2592000 (30 days)')
      .optional()
      .openapi({
        description:
          'How long the replaced key or secret stays valid (default APP_KEY_GRACE_SECONDS; 0 revokes it at once).',
      }),
  })
  .openapi('RotateApp');

export const UpdateAppSchema = z
  .strictObject({
    notify: NotifySchema.nullable().openapi({
      description: 'The default failure notification of timers that set none; null clears it.',
    }),
  })
  .openapi('UpdateApp');

export const AppInfoSchema = z
  .object({
    app: z.string().openapi({ example: 'billing' }),
    keyId: z.string().openapi({
      example: 'billing:3f9a1c2b4d5e',
      description: 'The current API key’s public id: the audit log names the changes made with it so.',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
    previousKeyValidUntil: z.string().nullable().openapi({
      description: 'Until when the key replaced by the last key rotation still works.',
    }),
    previousSecretValidUntil: z.string().nullable().openapi({
      description: 'Until when callbacks are also signed with the secret replaced by the last rotation.',
    }),
    notify: z
      .object({ url: z.string(), on: z.array(z.string()) })
      .nullable()
      .openapi({ description: 'The default failure notification of timers that set none.' }),
  })
  .openapi('App');

export const IssuedAppSchema = AppInfoSchema.extend({
  apiKey: z.string().optional().openapi({
    example: 'xtk_3q2-…',
    description: 'Send as Authorization: Bearer <apiKey>. Shown only here.',
  }),
  signingSecret: z.string().optional().openapi({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Verifies the webhook-signature of callbacks (Standard Webhooks). Shown only here.',
  }),
}).openapi('IssuedApp');

export const AppListSchema = z.object({ items: z.array(AppInfoSchema) }).openapi('AppList');
