import { type Context, Hono } from 'hono';
import { fromZodError, respondError } from '../../http/errors.js';
import { presentPreview } from '../../http/presenters.js';
import { AppSchema } from '../../http/schemas/common-schemas.js';
import { PreviewQuerySchema, SchedulePreviewQuerySchema } from '../../http/schemas/preview-schemas.js';
import { TimezoneSchema } from '../../http/schemas/schedule-schemas.js';
import { ListTimersQuerySchema } from '../../http/schemas/timer-schemas.js';
import { ScheduleTooCostlyError } from '../../src/domain/evaluation-budget.js';
import { TASK_STATUSES, type TaskStatus, type Timer } from '../../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { AuditService } from '../../src/services/apps/audit-service.js';
import { INTERNAL } from '../../src/services/timers/access.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { bulkActions } from '../bulk-actions.js';
import { timerActions, timerId } from '../timer-actions.js';
import { bulkOutcomeOf } from '../views/bulk-views.js';
import type { DashboardEnv, DashboardPaths } from '../views/layout.js';
import { samplesOf, type TimerRow, timerDetailPage, timersListPage } from '../views/timer-views.js';
import { parseInstant } from '../wall-time.js';
import { backfillPageRoutes } from './backfill-page.js';
import { runPageRoutes } from './run-page.js';

export interface TimersPageDeps {
  timers: TimerService;
  audit: AuditService;
  paths: DashboardPaths;
  callbackTimeoutMs: number;
  now: () => number;
}

const TIMERS_PER_PAGE = 50;
/** The success rate's window, and where the sparkline and last outcome come from. */
const RUNS_ON_LIST = 100;
const NEXT_ON_DETAIL = 10;
const RUNS_PER_PAGE = 50;
const RUNS_IN_CHART = 200;
const CHANGES_ON_DETAIL = 10;

function oneOf<T extends string>(
  values: readonly T[],
  value: string | undefined,
  what: string,
): T | undefined {
  if (value === undefined || value === '') return undefined;
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new XtimerError(ErrorCode.VALIDATION_FAILED, `${what} must be one of ${values.join(', ')}`);
}

/** A one-shot's preview: its zone, to read the typed time in; the time itself is the form's text. */
const OneShotPreviewQuerySchema = PreviewQuerySchema.extend({ timezone: TimezoneSchema.default('UTC') });

/** A cron's or an interval's preview query, read by the preview API's schema. */
function repeatingPreview(query: Record<string, string>) {
  const parsed = SchedulePreviewQuerySchema.safeParse(query);
  if (!parsed.success) throw fromZodError(parsed.error, 'query');
  const { cron, every, offset, timezone, count } = parsed.data;
  return { cron: cron ?? null, everyMs: every ?? null, offsetMs: offset ?? 0, at: null, timezone, count };
}

function oneShotPreview(query: Record<string, string>, at: string) {
  const parsed = OneShotPreviewQuerySchema.safeParse(query);
  if (!parsed.success) throw fromZodError(parsed.error, 'query');
  const { timezone, count } = parsed.data;
  if (at.trim() === '') throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'at: give the time to fire at');
  return { cron: null, everyMs: null, offsetMs: 0, at: parseInstant(at, timezone), timezone, count };
}

/** Every value of a repeatable query parameter, trimmed, empty ones left out. */
function all(c: Context, name: string): string[] {
  return (c.req.queries(name) ?? []).map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The timers pages (server-rendered): the list with its filters, one timer with its runs
 * and changes, the forms' live cron preview, and the actions (timer-actions.ts).
 */
export function timersPage({ timers, audit, paths, callbackTimeoutMs, now }: TimersPageDeps) {
  const app = new Hono<DashboardEnv>();
  // Before /:id, which would take /new for a timer id.
  app.route('/', timerActions({ timers, paths, callbackTimeoutMs }));
  app.route('/', bulkActions({ timers, paths, now }));
  app.route('/', backfillPageRoutes({ timers, paths }));
  app.route('/', runPageRoutes({ timers, paths }));

  app.get('/', async (c) => {
    const labels = all(c, 'label');
    // The filters are the API's: the same schema reads them.
    const parsed = ListTimersQuerySchema.safeParse({
      app: c.req.query('app')?.trim() || undefined,
      status: c.req.query('status') || undefined,
      label: labels.length === 0 ? undefined : labels,
      q: c.req.query('q')?.trim() || undefined,
      limit: String(TIMERS_PER_PAGE),
      cursor: c.req.query('cursor') || undefined,
    });
    if (!parsed.success) throw fromZodError(parsed.error, 'query');
    const { label, q, ...query } = parsed.data;
    const page = await timers.as(c.var.actor).definitions.list({ ...query, labels: label, nameContains: q });
    const recent = await timers.history.recent(
      page.items.map((t) => t.id),
      RUNS_ON_LIST,
    );
    const rows = page.items.map(
      (timer): TimerRow => ({
        timer,
        next: nextFire(timers, timer),
        recent: recent.get(timer.id) ?? [],
      }),
    );
    // The list's own URL without what the action that led here said.
    const self = new URL(c.req.url);
    for (const k of ['done', 'task', 'bulk', 'changed', 'selected', 'batch']) self.searchParams.delete(k);
    return c.html(
      timersListPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        rows,
        now: now(),
        filter: { app: query.app, status: query.status, labels, q },
        cursor: query.cursor,
        nextCursor: page.nextCursor,
        self: `${paths.timers}${self.search}`,
        done: c.req.query('done'),
        task: c.req.query('task'),
        bulk: bulkOutcomeOf((name) => c.req.query(name)),
      }),
    );
  });

  /**
   * The create and edit form's live preview (JSON, as the preview API answers): the next
   * fire times of a cron, an interval or a one-shot `at` as typed, within the window typed.
   * The form's times are wall times in its zone, read as the form reads them.
   */
  app.get('/preview', async (c) => {
    try {
      const { at, startAt, endAt, ...rest } = c.req.query();
      const { count, ...kind } = at === undefined ? repeatingPreview(rest) : oneShotPreview(rest, at);
      const { timezone } = kind;
      const instant = (text: string | undefined) =>
        text === undefined || text.trim() === '' ? null : parseInstant(text, timezone);
      const schedule = { ...kind, startAt: instant(startAt), endAt: instant(endAt) };
      // Asked for as the form is typed: not spent on the app's rate limit, unlike the API's preview.
      const runs = await timers.previews.ofSchedule(INTERNAL, schedule, count);
      return c.json(presentPreview({ timezone }, runs));
    } catch (err) {
      return respondError(c, err);
    }
  });

  /** The names of an app's calendars (JSON), for the form's Calendars as its app is typed. */
  app.get('/calendars', async (c) => {
    const app = AppSchema.safeParse(c.req.query('app')?.trim());
    const items = app.success ? await timers.as(c.var.actor).calendars.list(app.data) : [];
    return c.json({ items: items.map((cal) => cal.name) });
  });

  app.get('/:id', async (c) => {
    const id = timerId(c.req.param('id'));
    const scoped = timers.as(c.var.actor);
    const status = oneOf<TaskStatus>(TASK_STATUSES, c.req.query('status'), 'status');
    const cursor = c.req.query('cursor') || undefined;
    const { timer, runs: next } = await scoped.previews.ofTimer(id, NEXT_ON_DETAIL);
    const atText = c.req.query('at')?.trim() || undefined;
    const at = atText === undefined ? undefined : parseInstant(atText, timer.timezone);
    const until = now() + 1;
    // Runs are planned ahead: "recent" means scheduled up to now (or up to the asked time).
    const [page, chart, changes] = await Promise.all([
      scoped.history.list(id, {
        limit: RUNS_PER_PAGE,
        statuses: status === undefined ? undefined : [status],
        toMs: at === undefined ? until : at + 1,
        cursor,
      }),
      scoped.history.list(id, { limit: RUNS_IN_CHART, toMs: until }),
      audit.list(c.var.actor, { timerId: id, limit: CHANGES_ON_DETAIL }),
    ]);
    // The page's own URL without the confirmation of the action that led here.
    const self = new URL(c.req.url);
    self.searchParams.delete('done');
    self.searchParams.delete('task');
    return c.html(
      timerDetailPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        timer,
        next,
        runs: page.items,
        recent: chart.items,
        now: until - 1,
        lateness: samplesOf(chart.items),
        changes: changes.items,
        filter: { status, at },
        atText,
        cursor,
        nextCursor: page.nextCursor,
        self: `${paths.timers}/${id}${self.search}`,
        done: c.req.query('done'),
        task: c.req.query('task'),
      }),
    );
  });

  return app;
}

/** A timer's next fire time for the list; none shown (not the page refused) for one too costly to evaluate. */
function nextFire(timers: TimerService, timer: Timer): number | null {
  try {
    return timers.previews.nextFires(timer, 1)[0] ?? null;
  } catch (err) {
    if (err instanceof ScheduleTooCostlyError) return null;
    throw err;
  }
}
