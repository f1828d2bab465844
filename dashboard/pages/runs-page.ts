import { Hono } from 'hono';
import { AppSchema } from '../../http/schemas/common-schemas.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import type { DashboardEnv, DashboardPaths } from '../views/layout.js';
import { LISTED_STATUSES, type ListedStatus, runsPage } from '../views/runs-views.js';

const RUNS_PER_PAGE = 50;
/** A page ends at a run: `<runAt ms>.<row id>`. */
const CURSOR = /^(\d{1,15})\.(\d{1,15})$/;

/**
 * The failed and missed runs of every timer (/dashboard/runs?status=failed): where the
 * queues board points its users for failures, since its execute jobs all complete.
 */
export function runsPageRoutes({ timers, paths }: { timers: TimerService; paths: DashboardPaths }) {
  return new Hono<DashboardEnv>().get('/', async (c) => {
    const status = c.req.query('status') || 'failed';
    if (!(LISTED_STATUSES as readonly string[]).includes(status)) {
      throw new XtimerError(
        ErrorCode.VALIDATION_FAILED,
        `status must be one of ${LISTED_STATUSES.join(', ')}`,
      );
    }
    const app = c.req.query('app')?.trim() || undefined;
    if (app !== undefined && !AppSchema.safeParse(app).success) {
      throw new XtimerError(ErrorCode.INVALID_APP, 'app: not an app name');
    }
    const cursor = c.req.query('cursor') || undefined;
    const at = cursor === undefined ? null : CURSOR.exec(cursor);
    if (at === null && cursor !== undefined) {
      throw new XtimerError(ErrorCode.INVALID_CURSOR, 'cursor is not one this page gave');
    }
    const page = await timers.history.byStatus({
      status: status as ListedStatus,
      app,
      before: at ? { runAt: Number(at[1]), id: Number(at[2]) } : undefined,
      limit: RUNS_PER_PAGE,
    });
    const last = page.items.at(-1);
    const owners = await timers.definitions.getMany(page.items.map((t) => t.timerId));
    return c.html(
      runsPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        status: status as ListedStatus,
        app,
        runs: page.items,
        timers: new Map(owners.map((t) => [t.id, t])),
        nextCursor: page.more && last ? `${last.runAt}.${last.rowId}` : null,
        self: `${paths.runs}${new URL(c.req.url).search}`,
        done: c.req.query('done'),
        task: c.req.query('task'),
      }),
    );
  });
}
