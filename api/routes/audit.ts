import { createRoute, type z } from '@hono/zod-openapi';
import { presentAuditEntry } from '../../http/presenters.js';
import { AuditPageSchema, AuditQuerySchema } from '../../http/schemas/audit-schemas.js';
import { ErrorSchema } from '../../http/schemas/common-schemas.js';
import type { AuditService } from '../../src/services/apps/audit-service.js';
import { type ApiEnv, secured } from '../auth.js';
import { newRouter } from '../router.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

const list = createRoute({
  method: 'get',
  path: '/audit',
  tags: ['audit'],
  ...secured,
  summary: 'The audit log, newest first: who changed what, by app, timer or batch',
  request: { query: AuditQuerySchema },
  responses: {
    200: json(AuditPageSchema, 'A page of entries'),
    400: json(ErrorSchema, 'Invalid input'),
    401: json(ErrorSchema, 'No valid bearer token'),
    403: json(ErrorSchema, 'Another app named'),
  },
});

/** The audit log (docs/audit.md); an app key reads its own app's entries. */
export function auditRoutes(audit: AuditService) {
  return newRouter<ApiEnv>().openapi(list, async (c) => {
    const result = await audit.list(c.var.actor, c.req.valid('query'));
    return c.json({ items: result.items.map(presentAuditEntry), nextCursor: result.nextCursor }, 200);
  });
}
