import { type Context, Hono } from 'hono';
import { statusOf } from '../../http/errors.js';
import { presentBackfill } from '../../http/presenters.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { formOf, timerId, withDone } from '../timer-actions.js';
import { type BackfillFormView, backfillFormPage, backfillProgressPage } from '../views/backfill-views.js';
import type { DashboardEnv, DashboardPaths } from '../views/layout.js';
import { parseInstant, wallText } from '../wall-time.js';

function backfillId(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new XtimerError(ErrorCode.BACKFILL_NOT_FOUND, `no backfill ${text}`);
  return Number(text);
}

/** A posted range: epoch ms, as the preview's form carries it. */
function instant(value: unknown, name: string): number {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
    throw new XtimerError(ErrorCode.VALIDATION_FAILED, `${name}: give the range's ${name}`);
  }
  return Number(value);
}

/**
 * A timer's "Backfill" control (`/timers/:id/backfills`): a range typed in the timer's
 * zone, the count it would run before anything starts, then its progress (planned, sent,
 * done, failed) refreshed live until it completes, with a cancel. Through BackfillService,
 * as the API's backfills are.
 */
export function backfillPageRoutes({ timers, paths }: { timers: TimerService; paths: DashboardPaths }) {
  const app = new Hono<DashboardEnv>();
  const as = (c: Context<DashboardEnv>) => timers.as(c.var.actor);

  /** The Backfill form with the range as typed and the timer's latest backfills. */
  const formView = async (c: Context<DashboardEnv>, id: number, fromText: string, toText: string) => {
    const timer = await as(c).definitions.get(id);
    const backfills = (await as(c).backfills.list(id)).map(presentBackfill);
    const view: BackfillFormView = {
      paths,
      csrf: c.var.csrf,
      brake: c.var.brake,
      timer,
      fromText,
      toText,
      backfills,
    };
    return view;
  };

  app.get('/:id/backfills', async (c) => {
    const id = timerId(c.req.param('id'));
    const view = await formView(c, id, c.req.query('from')?.trim() ?? '', c.req.query('to')?.trim() ?? '');
    if (view.fromText !== '' || view.toText !== '') {
      // A range the service refuses is said beside the form, as the API would say it.
      try {
        const from = parseInstant(view.fromText, view.timer.timezone);
        const to = parseInstant(view.toText, view.timer.timezone);
        view.preview = { ...(await as(c).backfills.preview(id, { from, to })), from, to };
      } catch (err) {
        if (!(err instanceof XtimerError)) throw err;
        return c.html(backfillFormPage({ ...view, error: err.message }), statusOf(err.code));
      }
    }
    return c.html(backfillFormPage(view));
  });

  app.post('/:id/backfills', async (c) => {
    const id = timerId(c.req.param('id'));
    const form = await formOf(c);
    const from = instant(form.from, 'from');
    const to = instant(form.to, 'to');
    try {
      const started = await as(c).backfills.start(id, { from, to });
      return c.redirect(
        withDone(`${paths.timers}/${id}/backfills/${started.backfill.id}`, 'backfill-started'),
        303,
      );
    } catch (err) {
      // Another backfill under way over the range, or time moved past the preview: said beside the form.
      if (!(err instanceof XtimerError) || err.code === ErrorCode.TIMER_NOT_FOUND) throw err;
      const view = await formView(c, id, '', '');
      const zone = view.timer.timezone;
      const typed = { fromText: wallText(from, zone), toText: wallText(to, zone) };
      return c.html(backfillFormPage({ ...view, ...typed, error: err.message }), statusOf(err.code));
    }
  });

  app.get('/:id/backfills/:backfillId', async (c) => {
    const id = timerId(c.req.param('id'));
    const timer = await as(c).definitions.get(id);
    const found = await as(c).backfills.get(id, backfillId(c.req.param('backfillId')));
    return c.html(
      backfillProgressPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        timer,
        backfill: presentBackfill(found),
        done: c.req.query('done'),
      }),
    );
  });

  app.post('/:id/backfills/:backfillId/cancel', async (c) => {
    const id = timerId(c.req.param('id'));
    const bid = backfillId(c.req.param('backfillId'));
    await formOf(c);
    await as(c).backfills.cancel(id, bid);
    return c.redirect(withDone(`${paths.timers}/${id}/backfills/${bid}`, 'backfill-cancelled'), 303);
  });

  return app;
}
