import { z } from '@hono/zod-openapi';
import { AUDIT_ACTIONS } from '../../src/domain/audit.js';
import { AppSchema, CursorSchema, LimitSchema, PositiveIdSchema, page } from './common-schemas.js';

/** The audit log's query and entries (docs/audit.md). */

export const AuditQuerySchema = z.object({
  app: AppSchema.optional(),
  timerId: PositiveIdSchema.optional().openapi({ type: 'string', example: '42' }),
  batchId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ description: 'The entries of one batch of changes (an apply).' }),
  limit: LimitSchema,
  cursor: CursorSchema,
});

const FieldsSchema = z.record(z.string(), z.unknown()).nullable().openapi({
  description:
    'The fields the change touched (a timer’s fields by name, nested ones dotted: callback.url), masked: header values but a few (content-type, accept, user-agent, …), URL query values and token-like paths as ***, a callback body as {bytes, sha256}.',
});

export const AuditEntrySchema = z
  .object({
    id: z.number().int(),
    at: z.string().openapi({ example: '2026-11-22T10:05:03.123Z' }),
    actor: z.string().openapi({
      example: 'billing:3f9a1c2b4d5e',
      description: 'admin, open (no admin token configured), or the keyId of the app key used.',
    }),
    action: z.enum(AUDIT_ACTIONS),
    app: z.string(),
    timerId: z.number().int().nullable(),
    batchId: z.string().nullable(),
    before: FieldsSchema,
    after: FieldsSchema,
  })
  .openapi('AuditEntry');

export const AuditPageSchema = page(AuditEntrySchema, 'AuditPage');
