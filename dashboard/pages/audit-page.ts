import { Hono } from 'hono';
import { fromZodError } from '../../http/errors.js';
import { AuditQuerySchema } from '../../http/schemas/audit-schemas.js';
import type { AuditService } from '../../src/services/apps/audit-service.js';
import { auditPage } from '../views/audit-views.js';
import type { DashboardEnv, DashboardPaths } from '../views/layout.js';

const ENTRIES_PER_PAGE = 50;

/** The audit log (/dashboard/audit?app=&timerId=&batchId=): every change, by app, timer or batch. Its filters are the API's. */
export function auditPageRoutes({ audit, paths }: { audit: AuditService; paths: DashboardPaths }) {
  return new Hono<DashboardEnv>().get('/', async (c) => {
    const parsed = AuditQuerySchema.safeParse({
      app: c.req.query('app')?.trim() || undefined,
      timerId: c.req.query('timerId')?.trim() || undefined,
      // A bulk action's notice links the changes of its batch.
      batchId: c.req.query('batchId')?.trim() || undefined,
      limit: String(ENTRIES_PER_PAGE),
      cursor: c.req.query('cursor') || undefined,
    });
    if (!parsed.success) throw fromZodError(parsed.error, 'query');
    const page = await audit.list(c.var.actor, parsed.data);
    return c.html(
      auditPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        entries: page.items,
        filter: { app: parsed.data.app, timerId: parsed.data.timerId },
        nextCursor: page.nextCursor,
      }),
    );
  });
}
