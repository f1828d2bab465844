import { type Context, Hono } from 'hono';
import { fromZodError, respondError } from '../../http/errors.js';
import { presentPreview } from '../../http/presenters.js';
import { SchedulePreviewQuerySchema } from '../../http/schemas/preview-schemas.js';
import { ListTimersQuerySchema } from '../../http/schemas/timer-schemas.js';
import { ScheduleTooCostlyError } from '../../src/domain/evaluation-budget.js';
import { wallToInstant } from '../../src/domain/schedule/time-zone.js';
import { TASK_STATUSES, type TaskStatus, type Timer } from '../../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../../src/errors.js';
import type { AuditService } from '../../src/services/apps/audit-service.js';
import { INTERNAL } from '../../src/services/timers/access.js';
import type { TimerService } from '../../src/services/timers/timer-service.js';
import { timerActions, timerId } from '../timer-actions.js';
import type { DashboardEnv, DashboardPaths } from '../views/layout.js';
import { samplesOf, type TimerRow, timerDetailPage, timersListPage } from '../views/timer-views.js';

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

const WALL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

/**
 * An instant typed by a person: epoch ms, an ISO time with a zone (`Z` or an offset), or
 * a wall time with no zone, read in the timer's zone ("timer 42 at 10:05:03").
 */
export function parseInstant(text: string, timeZone: string): number {
  const s = text.trim();
  if (/^\d{10,15}$/.test(s)) return Number(s);
  const wall = WALL.exec(s);
  if (wall) {
    const [, y, mo, d, h, mi, sec, ms] = wall;
    const wallMs = Date.UTC(
      Number(y),
      Number(mo) - 1,
      Number(d),
      Number(h),
      Number(mi),
      Number(sec ?? 0),
      Number((ms ?? '0').padEnd(3, '0')),
    );
    return wallToInstant(timeZone, wallMs);
  }
  const parsed = /[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? Date.parse(s) : Number.NaN;
  if (Number.isNaN(parsed)) {
    throw new XtimerError(
      ErrorCode.VALIDATION_FAILED,
      `"${s}" is not a time: use YYYY-MM-DD HH:mm:ss (in the timer's zone), an ISO time with offset, or epoch ms`,
    );
  }
  return parsed;
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
    return c.html(
      timersListPage({
        paths,
        csrf: c.var.csrf,
        brake: c.var.brake,
        rows,
        filter: { app: query.app, status: query.status, labels, q },
        cursor: query.cursor,
        nextCursor: page.nextCursor,
        self: `${paths.timers}${new URL(c.req.url).search}`,
        done: c.req.query('done'),
        task: c.req.query('task'),
      }),
    );
  });

  /** The create and edit form's live preview: the preview API's answer for a cron and zone as typed (JSON). */
  app.get('/preview', async (c) => {
    try {
      const parsed = SchedulePreviewQuerySchema.safeParse(c.req.query());
      if (!parsed.success) throw fromZodError(parsed.error, 'query');
      const { cron, every, offset, timezone, count } = parsed.data;
      const schedule = { cron: cron ?? null, everyMs: every ?? null, offsetMs: offset ?? 0, timezone };
      // Asked for as the form is typed: not spent on the app's rate limit, unlike the API's preview.
      const runs = await timers.previews.ofSchedule(INTERNAL, schedule, count);
      return c.json(presentPreview({ timezone }, runs));
    } catch (err) {
      return respondError(c, err);
    }
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
