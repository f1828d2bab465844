import { Hono } from 'hono';
import { fromZodError } from '../http/errors.js';
import { PauseAllSchema } from '../http/schemas/pause-schemas.js';
import type { ServicePause } from '../src/services/apps/service-pause.js';
import { backTo, formOf, withDone } from './timer-actions.js';
import type { DashboardEnv, DashboardPaths } from './views/layout.js';

/**
 * The header's emergency brake: pause everything with a note, and resume. Each goes
 * through ServicePause as the dashboard's actor (audited as pause_all, resume_all) and
 * the API's schema for the note, then comes back to the page it was sent from.
 */
export function servicePauseActions({
  servicePause,
  paths,
}: {
  servicePause: ServicePause;
  paths: DashboardPaths;
}) {
  const app = new Hono<DashboardEnv>();

  app.post('/pause', async (c) => {
    const form = await formOf(c);
    const back = backTo(form.back, paths.timers, paths);
    const parsed = PauseAllSchema.safeParse({ note: typeof form.note === 'string' ? form.note : undefined });
    if (!parsed.success) throw fromZodError(parsed.error, 'form');
    await servicePause.as(c.var.actor).pause(parsed.data.note);
    return c.redirect(withDone(back, 'paused'), 303);
  });

  app.post('/resume', async (c) => {
    const back = backTo((await formOf(c)).back, paths.timers, paths);
    await servicePause.as(c.var.actor).resume();
    return c.redirect(withDone(back, 'resumed'), 303);
  });

  return app;
}
