import { Hono } from 'hono';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { timerId } from '../timer-actions.js';
import type { DashboardEnv, DashboardPaths } from '../views/layout.js';
import { runInspectorPage } from '../views/run-views.js';

/** The run inspector (`/timers/:id/runs/:taskId`): one run, its request and its answer. */
export function runPageRoutes({ timers, paths }: { timers: TimerService; paths: DashboardPaths }) {
  return new Hono<DashboardEnv>().get('/:id/runs/:taskId', async (c) => {
    const id = timerId(c.req.param('id'));
    const scoped = timers.as(c.var.actor);
    const timer = await scoped.definitions.get(id);
    const detail = await scoped.history.detail(id, c.req.param('taskId'));
    // The page's own URL without the confirmation of the retry that led here.
    const url = new URL(c.req.url);
    url.searchParams.delete('done');
    url.searchParams.delete('task');
    return c.html(
      runInspectorPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        timer,
        detail,
        self: `${url.pathname}${url.search}`,
        done: c.req.query('done'),
        task: c.req.query('task'),
      }),
    );
  });
}
