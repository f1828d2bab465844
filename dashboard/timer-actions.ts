import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { draftFrom } from '../http/timer-draft.js';
import { LIMITS, type Timer } from '../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../src/errors.js';
import type { TimerService } from '../src/services/timers/timer-service.js';
import {
  blankValues,
  createBody,
  type FormErrors,
  type FormValues,
  formProblem,
  parseCreate,
  parsePatch,
  patchBody,
  valuesFrom,
  valuesOf,
} from './timer-form-body.js';
import type { DashboardEnv, DashboardPaths, PageContext } from './views/layout.js';
import { timerFormPage } from './views/timer-form.js';
import { deleteConfirmPage } from './views/timer-views.js';

export interface TimerActionsDeps {
  timers: TimerService;
  paths: DashboardPaths;
  /** CALLBACK_TIMEOUT_MS, for a created timer that sets none. */
  callbackTimeoutMs: number;
}

export function timerId(text: string): number {
  if (!/^\d{1,15}$/.test(text))
    throw new XtimerError(ErrorCode.TIMER_NOT_FOUND, `timer ${text} does not exist`);
  return Number(text);
}

/**
 * Where a form comes back to: only a page of the timers, the failed runs or the changes
 * (no open redirect). A line break would split the Location header: refused (400), not
 * thrown by the header (500).
 */
export function backTo(value: unknown, fallback: string, paths: DashboardPaths): string {
  if (typeof value !== 'string') return fallback;
  if (/\p{Cc}/u.test(value)) {
    throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'back must not contain control characters');
  }
  const ours = [paths.timers, paths.runs, paths.audit].some(
    (page) => value === page || value.startsWith(`${page}/`) || value.startsWith(`${page}?`),
  );
  return ours && !value.includes('//') && !value.includes('\\') ? value : fallback;
}

/** `url` with `done` (and the run it concerns) in its query, for the page to confirm the action. */
export function withDone(url: string, done: string, task?: string): string {
  const u = new URL(url, 'http://dashboard.invalid');
  u.searchParams.set('done', done);
  if (task === undefined) u.searchParams.delete('task');
  else u.searchParams.set('task', task);
  return `${u.pathname}${u.search}${u.hash}`;
}

export async function formOf(c: Context) {
  return c.req.parseBody({ all: true }).catch(() => {
    // A malformed multipart or urlencoded body is the sender's fault, not a 500.
    throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'the form body cannot be read');
  });
}

/**
 * The timers page's actions, each a form post through the same services, checks and
 * audit log as the REST routes (`TimerService.as(actor)`, the API's schemas): run now,
 * retry, enable, disable, create, edit and delete (with a confirm step). Each answers
 * with a redirect to a page that says what was done (`?done=`); bad input re-renders
 * the form with the API's message beside the field, nothing saved.
 */
export function timerActions({ timers, paths, callbackTimeoutMs }: TimerActionsDeps) {
  const app = new Hono<DashboardEnv>();
  const ctxOf = (c: Context<DashboardEnv>): PageContext => ({ paths, csrf: c.var.csrf, brake: c.var.brake });
  const as = (c: Context<DashboardEnv>) => timers.as(c.var.actor);

  const formPage = async (
    c: Context<DashboardEnv>,
    values: FormValues,
    problem: { errors: FormErrors; status: ContentfulStatusCode },
    timer?: Timer,
  ) => {
    const { errors, status } = problem;
    // The edit form's live preview starts from the stored schedule; the create form's from the first typing.
    const preview =
      timer === undefined
        ? { runs: [], timezone: 'UTC' }
        : { runs: (await as(c).previews.ofTimer(timer.id, 5)).runs, timezone: timer.timezone };
    const view = { ...ctxOf(c), mode: timer ? 'edit' : 'create', timer, values, errors, preview } as const;
    return c.html(timerFormPage({ ...view, calendars: await calendarNames(c, values.app) }), status);
  };

  /** The names of the app's calendars, for the form's boxes; none while the app typed is no app name. */
  const calendarNames = async (c: Context<DashboardEnv>, app: string): Promise<string[]> =>
    LIMITS.appPattern.test(app.trim()) ? (await as(c).calendars.list(app.trim())).map((cal) => cal.name) : [];

  const fresh = { errors: {}, status: 200 } as const;

  app.get('/new', (c) => formPage(c, { ...blankValues(), app: c.req.query('app')?.trim() ?? '' }, fresh));

  app.post('/new', async (c) => {
    const values = valuesFrom(await formOf(c));
    try {
      const draft = draftFrom(parseCreate(createBody(values)), callbackTimeoutMs);
      const created = await as(c).definitions.create(draft);
      return c.redirect(withDone(`${paths.timers}/${created.id}`, 'created'), 303);
    } catch (err) {
      return formPage(c, values, formProblem(err));
    }
  });

  app.get('/:id/edit', async (c) => {
    const timer = await as(c).definitions.get(timerId(c.req.param('id')));
    return formPage(c, valuesOf(timer), fresh, timer);
  });

  app.post('/:id/edit', async (c) => {
    const id = timerId(c.req.param('id'));
    const timer = await as(c).definitions.get(id);
    const form = await formOf(c);
    const values = valuesFrom(form, valuesOf(timer));
    // The version the form was opened at: the patch is what the form changed from the timer
    // as it is now, so a change saved meanwhile (the app's, through the API) would be undone.
    const opened = Number(form.version);
    const ifMatch = Number.isInteger(opened) ? { versions: [opened] } : undefined;
    const changedMeanwhile = async () => {
      const now = await as(c).definitions.get(id);
      const general = [
        'The timer was changed since this form was opened, and nothing was saved: this is the timer as it is now; make your changes again.',
      ];
      return formPage(c, valuesOf(now), { errors: { general }, status: 409 }, now);
    };
    if (ifMatch && opened !== timer.version) return changedMeanwhile();
    try {
      const patch = parsePatch(patchBody(values, timer));
      if (Object.keys(patch).length > 0) await as(c).definitions.update(id, patch, ifMatch);
      return c.redirect(withDone(`${paths.timers}/${id}`, 'updated'), 303);
    } catch (err) {
      if (err instanceof XtimerError && err.code === ErrorCode.VERSION_CONFLICT) return changedMeanwhile();
      return formPage(c, values, formProblem(err), timer);
    }
  });

  app.get('/:id/delete', async (c) => {
    const timer = await as(c).definitions.get(timerId(c.req.param('id')));
    return c.html(deleteConfirmPage(ctxOf(c), timer));
  });

  app.post('/:id/delete', async (c) => {
    const id = timerId(c.req.param('id'));
    await formOf(c);
    await as(c).definitions.delete(id);
    return c.redirect(withDone(paths.timers, 'deleted'), 303);
  });

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/:id/${action}`, async (c) => {
      const id = timerId(c.req.param('id'));
      const back = backTo((await formOf(c)).back, `${paths.timers}/${id}`, paths);
      await (action === 'enable' ? as(c).lifecycle.enable(id) : as(c).lifecycle.disable(id));
      return c.redirect(withDone(back, `${action}d`), 303);
    });
  }

  app.post('/:id/trigger', async (c) => {
    const id = timerId(c.req.param('id'));
    const back = backTo((await formOf(c)).back, `${paths.timers}/${id}`, paths);
    const run = await as(c).runs.trigger(id);
    return c.redirect(withDone(back, 'triggered', run.id), 303);
  });

  app.post('/:id/runs/:taskId/retry', async (c) => {
    const id = timerId(c.req.param('id'));
    const back = backTo((await formOf(c)).back, `${paths.timers}/${id}`, paths);
    const run = await as(c).runs.retry(id, c.req.param('taskId'));
    return c.redirect(withDone(back, 'retried', run.id), 303);
  });

  return app;
}
