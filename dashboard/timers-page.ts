import { Hono } from 'hono';
import { wallToInstant } from '../src/domain/time-zone.js';
import { TASK_STATUSES, type TaskStatus, TIMER_STATUSES, type TimerStatus } from '../src/domain/timer.js';
import { ErrorCode, XtimerError } from '../src/errors.js';
import type { TimerService } from '../src/services/timer-service.js';
import type { DashboardPaths } from './layout.js';
import { samplesOf, type TimerRow, timerDetailPage, timersListPage } from './timer-views.js';

export interface TimersPageDeps {
  timers: TimerService;
  paths: DashboardPaths;
  now: () => number;
}

const TIMERS_PER_PAGE = 50;
const NEXT_ON_LIST = 3;
const RUNS_ON_LIST = 30;
const NEXT_ON_DETAIL = 10;
const RUNS_PER_PAGE = 50;
const RUNS_IN_CHART = 200;

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

function timerId(text: string): number {
  if (!/^\d{1,15}$/.test(text))
    throw new XtimerError(ErrorCode.TIMER_NOT_FOUND, `timer ${text} does not exist`);
  return Number(text);
}

/**
 * Where a form comes back to: only a page of this dashboard (no open redirect). A line
 * break would split the Location header: refused (400), not thrown by the header (500).
 */
function backTo(value: unknown, fallback: string, paths: DashboardPaths): string {
  if (typeof value !== 'string') return fallback;
  if (/\p{Cc}/u.test(value)) {
    throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'back must not contain control characters');
  }
  const ok =
    (value === paths.timers ||
      value.startsWith(`${paths.timers}/`) ||
      value.startsWith(`${paths.timers}?`)) &&
    !value.includes('//') &&
    !value.includes('\\');
  return ok ? value : fallback;
}

/** The timers page (server-rendered): the list, one timer with its runs, enable/disable. */
export function timersPage({ timers, paths, now }: TimersPageDeps) {
  const app = new Hono();

  app.get('/', async (c) => {
    const appName = c.req.query('app')?.trim() || undefined;
    const status = oneOf<TimerStatus>(TIMER_STATUSES, c.req.query('status'), 'status');
    const cursor = c.req.query('cursor') || undefined;
    const page = await timers.list({ app: appName, status, limit: TIMERS_PER_PAGE, cursor });
    const until = now() + 1;
    const rows = await Promise.all(
      page.items.map(async (timer): Promise<TimerRow | null> => {
        try {
          const [preview, recent] = await Promise.all([
            timers.preview(timer.id, NEXT_ON_LIST),
            timers.listTasks(timer.id, { limit: RUNS_ON_LIST, toMs: until }),
          ]);
          return { timer: preview.timer, next: preview.runs, recent: recent.items };
        } catch (err) {
          // Deleted between the list and this look: leave it out.
          if (err instanceof XtimerError && err.code === ErrorCode.TIMER_NOT_FOUND) return null;
          throw err;
        }
      }),
    );
    return c.html(
      timersListPage({
        rows: rows.filter((r) => r !== null),
        filter: { app: appName, status },
        cursor,
        nextCursor: page.nextCursor,
        self: `${paths.timers}${new URL(c.req.url).search}`,
        paths,
      }),
    );
  });

  app.get('/:id', async (c) => {
    const id = timerId(c.req.param('id'));
    const status = oneOf<TaskStatus>(TASK_STATUSES, c.req.query('status'), 'status');
    const cursor = c.req.query('cursor') || undefined;
    const { timer, runs: next } = await timers.preview(id, NEXT_ON_DETAIL);
    const atText = c.req.query('at')?.trim() || undefined;
    const at = atText === undefined ? undefined : parseInstant(atText, timer.timezone);
    const until = now() + 1;
    // Runs are planned ahead: "recent" means scheduled up to now (or up to the asked time).
    const [page, chart] = await Promise.all([
      timers.listTasks(id, {
        limit: RUNS_PER_PAGE,
        statuses: status === undefined ? undefined : [status],
        toMs: at === undefined ? until : at + 1,
        cursor,
      }),
      timers.listTasks(id, { limit: RUNS_IN_CHART, toMs: until }),
    ]);
    return c.html(
      timerDetailPage({
        timer,
        next,
        runs: page.items,
        lateness: samplesOf(chart.items),
        filter: { status, at },
        atText,
        cursor,
        nextCursor: page.nextCursor,
        self: `${paths.timers}/${id}${new URL(c.req.url).search}`,
        paths,
      }),
    );
  });

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/:id/${action}`, async (c) => {
      const id = timerId(c.req.param('id'));
      const form = await c.req.parseBody().catch(() => {
        // A malformed multipart or urlencoded body is the sender's fault, not a 500.
        throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'the form body cannot be read');
      });
      const back = backTo(form.back, `${paths.timers}/${id}`, paths);
      await (action === 'enable' ? timers.enable(id) : timers.disable(id));
      return c.redirect(back, 303);
    });
  }

  return app;
}
