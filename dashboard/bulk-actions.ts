import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { fromZodError } from '../http/errors.js';
import { ListTimersQuerySchema } from '../http/schemas/timer-schemas.js';
import { DurationSyntaxError, parseDuration } from '../src/domain/duration.js';
import { ErrorCode, XtimerError } from '../src/errors.js';
import { SELECTION_ACTIONS, SELECTION_MAX } from '../src/services/timers/timer-selection.js';
import type { TimerService } from '../src/services/timers/timer-service.js';
import { backTo, formOf } from './timer-actions.js';
import type { DashboardEnv, DashboardPaths } from './views/layout.js';
import { parseInstant } from './wall-time.js';

type Form = Awaited<ReturnType<typeof formOf>>;

/** Every value of a form field, trimmed, empty ones left out. */
function values(form: Form, name: string): string[] {
  const v = form[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v])
    .filter((x): x is string => typeof x === 'string')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

const one = (form: Form, name: string): string | undefined => values(form, name)[0];

/** A pause's until as typed on the list: a duration from now (2h), or a time (UTC when it names no zone). */
function untilOf(text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined;
  try {
    return now + parseDuration(text);
  } catch (err) {
    if (!(err instanceof DurationSyntaxError)) throw err;
  }
  return parseInstant(text, 'UTC');
}

/**
 * The timers list's bulk actions: Pause selected (one note, optional until), Resume
 * selected and Run now, over the ticked rows or every timer matching the list's filter.
 * One call of the selection use case, audited as one batch; the list then says how many changed.
 */
export function bulkActions({
  timers,
  paths,
  now,
}: {
  timers: TimerService;
  paths: DashboardPaths;
  now: () => number;
}) {
  const app = new Hono<DashboardEnv>();

  /** The ids of every timer the filter matches, page by page, up to one selection's worth. */
  const matching = async (c: Context<DashboardEnv>, form: Form): Promise<number[]> => {
    const labels = values(form, 'f-label');
    const parsed = ListTimersQuerySchema.safeParse({
      app: one(form, 'f-app'),
      status: one(form, 'f-status'),
      label: labels.length === 0 ? undefined : labels,
      q: one(form, 'f-q'),
      limit: '500',
    });
    if (!parsed.success) throw fromZodError(parsed.error, 'query');
    const { label, q, cursor: _, ...query } = parsed.data;
    const ids: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await timers
        .as(c.var.actor)
        .definitions.list({ ...query, labels: label, nameContains: q, cursor });
      ids.push(...page.items.map((t) => t.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && ids.length <= SELECTION_MAX);
    return ids;
  };

  app.post('/bulk', async (c) => {
    const form = await formOf(c);
    const back = backTo(form.back, paths.timers, paths);
    const action = SELECTION_ACTIONS.find((a) => a === one(form, 'action'));
    if (action === undefined) {
      throw new XtimerError(
        ErrorCode.VALIDATION_FAILED,
        `action must be one of ${SELECTION_ACTIONS.join(', ')}`,
      );
    }
    const ids = one(form, 'all') === '1' ? await matching(c, form) : values(form, 'id').map(Number);
    if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
      throw new XtimerError(
        ErrorCode.VALIDATION_FAILED,
        'select timers first: tick their boxes, or select all matching the filter',
      );
    }
    const pause = { note: one(form, 'note') ?? null, until: untilOf(one(form, 'until'), now()) ?? null };
    const result = await timers
      .as(c.var.actor, { batchId: randomUUID() })
      .selection.apply({ action, ids, pause: action === 'pause' ? pause : undefined });
    const u = new URL(back, 'http://dashboard.invalid');
    for (const k of ['done', 'task']) u.searchParams.delete(k);
    u.searchParams.set('bulk', action);
    u.searchParams.set('changed', String(result.changed));
    u.searchParams.set('selected', String(result.selected));
    u.searchParams.set('batch', result.batchId ?? '');
    return c.redirect(`${u.pathname}${u.search}`, 303);
  });

  return app;
}
