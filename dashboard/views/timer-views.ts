import { html } from 'hono/html';
import type { AuditEntry } from '../../src/domain/audit.js';
import { formatDuration } from '../../src/domain/duration.js';
import { taskKey } from '../../src/domain/plan/task-key.js';
import {
  latenessOf,
  sinceBackfillStartOf,
  TASK_STATUSES,
  type Task,
  type TaskStatus,
  TIMER_STATUSES,
  type Timer,
  type TimerStatus,
} from '../../src/domain/timer.js';
import { auditTable } from './audit-views.js';
import { type BulkOutcome, bulkForm, bulkNotice } from './bulk-views.js';
import { type LatenessSample, latenessHistogram, latenessStats, sparkline } from './lateness-chart.js';
import {
  badge,
  layout,
  liveBox,
  type Markup,
  notice,
  type PageContext,
  postButton,
  query,
  type ShellContext,
  when,
  whenRelative,
  zoned,
} from './layout.js';
import { runTimeline } from './run-timeline.js';

/**
 * The timers pages as HTML, from data the routes gathered. Every value from a user (app,
 * name, URL, labels, output, error) goes through hono/html's escaping interpolation.
 */

/** Lateness samples (the first call's) of the runs that were called, newest first as given. */
export function samplesOf(tasks: readonly Task[]): LatenessSample[] {
  return tasks.flatMap((t) => {
    const latencyMs = latenessOf(t);
    return latencyMs === null ? [] : [{ runAt: t.runAt, latencyMs }];
  });
}

const SETTLED: readonly TaskStatus[] = ['succeeded', 'failed', 'skipped', 'missed'];
/** Outcomes a success rate counts: a skipped run was not the receiver's to succeed or fail. */
const JUDGED: readonly TaskStatus[] = ['succeeded', 'failed', 'missed'];

function successRate(recent: readonly Task[]): Markup {
  const judged = recent.filter((t) => JUDGED.includes(t.status));
  if (judged.length === 0) return html`<span class="muted">—</span>`;
  const ok = judged.filter((t) => t.status === 'succeeded').length;
  const pct = Math.floor((ok / judged.length) * 1000) / 10;
  return html`<span data-field="success" title="${ok} of the last ${judged.length} finished runs succeeded">${pct}%</span> <span class="muted small">of ${judged.length}</span>`;
}

function labelChips(timer: Timer): Markup {
  return html`${Object.entries(timer.labels).map(
    ([k, v]) => html`<span class="label" data-label="${k}:${v}">${k}: ${v}</span>`,
  )}`;
}

/** A timer's schedule in words: its cron, or its one time. */
function schedule(timer: Timer): Markup {
  if (timer.cron !== null) return html`<span class="mono">${timer.cron}</span>`;
  if (timer.everyMs !== null) {
    const offset = timer.offsetMs === 0 ? '' : ` + ${formatDuration(timer.offsetMs)}`;
    return html`<span class="mono">every ${formatDuration(timer.everyMs)}${offset}</span>`;
  }
  return timer.at === null ? html`—` : html`once at ${when(timer.at, timer.timezone)}`;
}

function toggleButton(ctx: PageContext, timer: Timer, back: string): Markup {
  if (timer.status === 'completed') return html``;
  const active = timer.status === 'active';
  return postButton(
    ctx,
    `${ctx.paths.timers}/${timer.id}/${active ? 'disable' : 'enable'}`,
    active ? 'Disable' : 'Enable',
    {
      back,
      name: active ? 'disable' : 'enable',
      kind: active ? 'danger' : 'go',
    },
  );
}

function runNowButton(ctx: PageContext, timer: Timer, back: string): Markup {
  return postButton(ctx, `${ctx.paths.timers}/${timer.id}/trigger`, 'Run now', {
    back,
    name: 'trigger',
    title: 'call the callback once, now, whatever the status',
  });
}

// ---------------------------------------------------------------- the list

export interface TimerRow {
  timer: Timer;
  /** The next fire time; null for an inactive or completed timer. */
  next: number | null;
  /** The latest runs up to now (up to 100), newest first. */
  recent: Task[];
}

export interface TimersFilter {
  app?: string | undefined;
  status?: TimerStatus | undefined;
  /** `key:value` label filters, as typed. */
  labels: string[];
  q?: string | undefined;
}

export interface TimersListView extends PageContext {
  rows: TimerRow[];
  /** When the page was made: what its relative times count from. */
  now: number;
  filter: TimersFilter;
  cursor?: string | undefined;
  nextCursor: string | null;
  /** This page's own URL (path and query), where the forms come back to. */
  self: string;
  done?: string | undefined;
  task?: string | undefined;
  /** What the bulk action that led here did. */
  bulk?: BulkOutcome | undefined;
}

const filterQuery = (f: TimersFilter) => ({ app: f.app, status: f.status, label: f.labels, q: f.q });

function timerRow(row: TimerRow, v: TimersListView): Markup {
  const { timer } = row;
  const last = row.recent.find((t) => SETTLED.includes(t.status));
  return html`<tr id="timer-${timer.id}" data-timer-id="${timer.id}">
<td class="num mono nowrap" data-label="ID"><input type="checkbox" class="pick" name="id" value="${timer.id}" form="bulk" aria-label="select ${timer.name}"> ${timer.id}</td>
<td data-label="Name"><div><a href="${v.paths.timers}/${timer.id}" title="${timer.description ?? ''}">${timer.name}</a><div>${labelChips(timer)}</div></div></td>
<td data-label="Status" data-field="status"><div>${badge(timer.status)}${timer.pausedNote ? html`<div class="muted small" data-field="paused-note">${timer.pausedNote}${timer.pausedUntil === null ? '' : html` · until ${when(timer.pausedUntil, timer.timezone)}`}</div>` : ''}</div></td>
<td data-label="Schedule"><div>${schedule(timer)}<div class="muted small">${timer.timezone}</div></div></td>
<td class="next" data-label="Next fire" data-field="next">${row.next === null ? html`<span class="muted">none</span>` : whenRelative(row.next, timer.timezone, v.now)}</td>
<td class="spark-cell" data-label="Lateness">${sparkline(samplesOf(row.recent.slice(0, 30)))}</td>
<td data-label="Last outcome" data-field="last">${last ? html`<div class="last">${badge(last.status)} ${whenRelative(last.runAt, timer.timezone, v.now)}</div>` : html`<span class="muted">—</span>`}</td>
<td class="num nowrap" data-label="Success">${successRate(row.recent)}</td>
<td class="row-actions"><span class="actions">${runNowButton(v, timer, v.self)}${toggleButton(v, timer, v.self)}</span></td>
</tr>`;
}

export function timersListPage(v: TimersListView): Markup {
  const apps = new Map<string, TimerRow[]>();
  for (const row of v.rows) {
    const list = apps.get(row.timer.app) ?? [];
    list.push(row);
    apps.set(row.timer.app, list);
  }
  const filtered = Boolean(v.filter.app || v.filter.status || v.filter.q || v.filter.labels.length > 0);
  const sections = [...apps.keys()].sort().map((app) => {
    const rows = apps.get(app)!;
    return html`<section class="app" data-app="${app}">
<div class="app-head"><h2><a href="${v.paths.timers}${query({ ...filterQuery(v.filter), app })}">${app}</a></h2>
<span class="muted">${rows.length} timer${rows.length === 1 ? '' : 's'}${v.nextCursor || v.cursor ? ' on this page' : ''}</span>
<a class="small" href="${v.paths.audit}${query({ app })}">changes</a></div>
<div class="table-box"><table class="timers">
<thead><tr><th class="num">ID</th><th>Name</th><th>Status</th><th>Schedule</th><th>Next fire</th><th title="how late each run's first call left">Lateness</th><th>Last outcome</th><th class="num" title="succeeded of the last 100 finished runs">Success</th><th></th></tr></thead>
<tbody>${rows.map((row) => timerRow(row, v))}</tbody>
</table></div>
</section>`;
  });
  const labelInputs = [...v.filter.labels, ''];
  const body = html`<h1>Timers <a class="button go" href="${v.paths.timers}/new" data-action="new">New timer</a></h1>
${notice(v.done, v.task)}${bulkNotice(v.paths, v.bulk)}
<form class="filters" method="get" action="${v.paths.timers}">
<label>App <input name="app" value="${v.filter.app ?? ''}" placeholder="all apps" size="14"></label>
<label>Status <select name="status">
<option value="">any</option>
${TIMER_STATUSES.map((s) => html`<option value="${s}" ${v.filter.status === s ? 'selected' : ''}>${s}</option>`)}
</select></label>
<label>Name <input name="q" value="${v.filter.q ?? ''}" placeholder="contains" size="14"></label>
${labelInputs.map((l) => html`<label>Label <input name="label" value="${l}" placeholder="key:value" size="14"></label>`)}
<button type="submit">Filter</button>
${filtered ? html`<a href="${v.paths.timers}">clear</a>` : ''}
${liveBox(5000)}
</form>
${v.rows.length === 0 ? '' : bulkForm(v)}
<p class="muted small">Times are in each timer's zone, with its offset. Lateness bars: how late each run's first call left — green ≤ 10 ms, amber ≤ 250 ms, red above (log scale).</p>
<div id="timers-live" data-live>
${v.rows.length === 0 ? html`<p class="muted" id="no-timers">No timers${filtered ? ' match this filter' : ' yet: create one with New timer or POST /api/v1/timers'}.</p>` : sections}
<div class="pager">
${v.cursor ? html`<a href="${v.paths.timers}${query(filterQuery(v.filter))}">← first page</a> · ` : ''}
${v.nextCursor ? html`<a href="${v.paths.timers}${query({ ...filterQuery(v.filter), cursor: v.nextCursor })}">next page →</a>` : ''}
</div>
</div>`;
  return layout({ title: 'Timers', here: 'timers', ctx: v, body });
}

// ---------------------------------------------------------------- one timer

export interface TimerDetailView extends PageContext {
  timer: Timer;
  next: number[];
  runs: Task[];
  /** The latest runs up to now, newest first, whatever the filter: the timeline and the last run. */
  recent: Task[];
  /** When the page was made: what its relative times count from. */
  now: number;
  /** Lateness of the recent fired runs (for the chart), newest first. */
  lateness: LatenessSample[];
  /** The timer's latest changes, newest first. */
  changes: AuditEntry[];
  filter: { status?: TaskStatus | undefined; at?: number | undefined };
  /** The raw `at` text, to show back in the form. */
  atText?: string | undefined;
  cursor?: string | undefined;
  nextCursor: string | null;
  self: string;
  done?: string | undefined;
  task?: string | undefined;
}

function runRow(t: Task, v: TimerDetailView): Markup {
  const key = taskKey(t.timerId, t.runAt);
  const late = latenessOf(t);
  const since = sinceBackfillStartOf(t);
  const focus = v.filter.at !== undefined && t.runAt === v.filter.at;
  const lastSent =
    t.firedAt !== null && t.attempts > 1
      ? ` · attempt ${t.attempts} sent at ${zoned(t.firedAt, v.timer.timezone)}`
      : '';
  return html`<tr id="run-${key}" class="${focus ? 'focus' : ''}" data-status="${t.status}" data-trigger="${t.trigger}">
<td class="mono nowrap"><a href="${v.paths.timers}/${t.timerId}/runs/${key}" data-action="inspect" title="open this run: its request and response">${when(t.runAt, v.timer.timezone)}</a></td>
<td>${badge(t.status)}</td>
<td class="num" data-field="lateness" title="${since === null ? `how late the first call left${lastSent}` : 'a backfill run: how long after the backfill began its first call left (it is not late: its time is past by design)'}">${late !== null ? `${late} ms` : since !== null ? `+${since} ms into the backfill` : '—'}</td>
<td class="num" data-field="attempts">${t.attempts}</td>
<td class="num">${t.httpStatus ?? '—'}</td>
<td class="num hide-narrow">${t.durationMs === null ? '—' : `${t.durationMs} ms`}</td>
<td><div class="output mono">${t.output ?? ''}</div>${t.error ? html`<div class="output mono" style="color: var(--bad)">${t.error}</div>` : ''}</td>
<td class="small">${t.trigger}</td>
<td class="mono"><a href="${v.paths.queues}/queue/execute/${key}" title="this run's execute job on the board (kept about an hour after it completes)">${key}</a></td>
<td>${
    t.status === 'failed' || t.status === 'missed'
      ? postButton(v, `${v.paths.timers}/${t.timerId}/runs/${key}/retry`, 'Retry', {
          back: v.self,
          name: 'retry',
          title: 'call this run again, as its next attempt',
        })
      : ''
  }</td>
</tr>`;
}

function definition(timer: Timer): Markup {
  const cb = timer.callback;
  const headerCount = Object.keys(cb.headers).length;
  const opt = (name: string, value: Markup | string | null) =>
    value === null ? '' : html`<dt>${name}</dt><dd>${value}</dd>`;
  return html`<dl class="def">
<dt>Schedule</dt><dd>${schedule(timer)}</dd>
<dt>Time zone</dt><dd>${timer.timezone}</dd>
${opt('Not before', timer.startAt === null ? null : when(timer.startAt, timer.timezone))}
${opt('Not from', timer.endAt === null ? null : when(timer.endAt, timer.timezone))}
${opt('Runs at most', timer.maxRuns === null ? null : `${timer.maxRuns} (${timer.runsPlanned} planned so far)`)}
${opt('Jitter', timer.jitterMs === 0 ? null : `up to ${timer.jitterMs} ms`)}
${opt('Skips', timer.skipCalendars.length === 0 ? null : `the dates of ${timer.skipCalendars.join(', ')}`)}
${opt('Auto-pause', timer.autoPause === null ? null : `after ${timer.autoPause.afterConsecutiveFailures} failed runs in a row`)}
<dt>Callback</dt><dd class="mono">${cb.method} ${cb.url}</dd>
<dt>Headers</dt><dd>${headerCount === 0 ? '—' : Object.keys(cb.headers).join(', ')}</dd>
<dt>Body</dt><dd>${cb.body === null || cb.body === '' ? '—' : `${Buffer.byteLength(cb.body)} bytes`}</dd>
<dt>Timeout</dt><dd>${cb.timeoutMs} ms</dd>
<dt>Retry</dt><dd>${timer.retry.maxAttempts} attempt${timer.retry.maxAttempts === 1 ? '' : 's'}, backoff ${timer.retry.backoffMs} ms</dd>
<dt>Misfire</dt><dd>${timer.misfirePolicy} after ${timer.misfireThresholdMs} ms</dd>
<dt>Overlap</dt><dd>${timer.overlapPolicy}</dd>
<dt>Notify</dt><dd class="mono">${timer.notify === null ? html`<span class="muted">the app's</span>` : `${timer.notify.on.join(', ')} → ${timer.notify.url}`}</dd>
<dt>Labels</dt><dd data-field="labels">${Object.keys(timer.labels).length === 0 ? '—' : labelChips(timer)}</dd>
<dt>Description</dt><dd data-field="description" style="white-space: pre-wrap">${timer.description ?? '—'}</dd>
<dt>Created</dt><dd>${when(timer.createdAt.getTime(), timer.timezone)}</dd>
<dt>Updated</dt><dd>${when(timer.updatedAt.getTime(), timer.timezone)}</dd>
</dl>`;
}

/** The next fire and the last run, as far from now as they are. */
function soon(v: TimerDetailView): Markup {
  const { timer } = v;
  const last = v.recent.find((t) => SETTLED.includes(t.status));
  const next = timer.status === 'active' ? v.next[0] : undefined;
  return html`<div class="soon"><div data-field="next-fire"><span class="muted">Next fire</span> ${next === undefined ? html`<span class="muted">none</span>` : whenRelative(next, timer.timezone, v.now)}</div>
<div data-field="last-run"><span class="muted">Last run</span> ${last ? html`${badge(last.status)} ${whenRelative(last.runAt, timer.timezone, v.now)}` : html`<span class="muted">none yet</span>`}</div></div>`;
}

function nextFires(v: TimerDetailView): Markup {
  const { timer } = v;
  const list = html`<div class="next mono">${v.next.map((ms) => html`<div>${when(ms, timer.timezone)}</div>`)}</div>`;
  if (timer.status === 'completed') return html`<p class="muted">Completed: it fires no more.</p>`;
  if (timer.status === 'inactive') {
    return html`<p class="muted">Inactive: nothing fires. Once enabled it would fire at:</p><div class="muted">${list}</div>`;
  }
  return v.next.length === 0 ? html`<p class="muted">No fire time left.</p>` : list;
}

export function timerDetailPage(v: TimerDetailView): Markup {
  const { timer } = v;
  const stats = latenessStats(v.lateness.map((s) => s.latencyMs));
  const filtered = Boolean(v.filter.status || v.filter.at !== undefined);
  const base = `${v.paths.timers}/${timer.id}`;
  const body = html`<p class="muted"><a href="${v.paths.timers}">Timers</a> / <a href="${v.paths.timers}${query({ app: timer.app })}">${timer.app}</a></p>
<h1><span>${timer.name}</span> <span data-field="status">${badge(timer.status)}</span>
<span class="actions">${runNowButton(v, timer, base)}${toggleButton(v, timer, v.self)}
<a class="button" href="${base}/edit" data-action="edit">Edit</a>
${timer.at === null ? html`<a class="button" href="${base}/backfills" data-action="backfill" title="run the schedule over a past range">Backfill</a>` : ''}
<a class="button" href="${base}/delete" data-action="delete" style="color: var(--bad)">Delete</a></span></h1>
<p class="muted">Timer ${timer.id} of app ${timer.app}</p>
${notice(v.done, v.task)}
<div class="cols">
<div class="card"><h2>Definition</h2>${definition(timer)}</div>
<div class="card"><h2>Next fire times <span class="muted">(${timer.timezone})</span></h2>
<div id="next-live" data-live>${soon(v)}${nextFires(v)}</div>
</div>
</div>
<div class="card" style="margin-top: 24px"><div id="timeline-live" data-live><h2>Recent runs <span class="muted">(last ${v.recent.length}, by outcome)</span></h2>
${runTimeline(v.recent, timer.timezone, v.now)}</div></div>
<div class="card" style="margin-top: 24px"><div id="lateness-live" data-live><h2>Lateness of the first call, last ${v.lateness.length} fired runs</h2>
${stats ? html`<p class="stats mono"><span>p50 ${stats.p50} ms</span><span>p95 ${stats.p95} ms</span><span>p99 ${stats.p99} ms</span><span>max ${stats.max} ms</span></p>` : ''}
<div style="display: flex; gap: 32px; align-items: flex-end; flex-wrap: wrap">
${latenessHistogram(v.lateness.map((s) => s.latencyMs))}
${v.lateness.length > 0 ? html`<div><div class="muted" style="font-size: 12px">run by run, oldest left (log scale)</div>${sparkline(v.lateness, 300, 60)}</div>` : ''}
</div></div></div>
<h2 id="runs">Runs</h2>
<form class="filters" method="get" action="${base}">
<label>Status <select name="status">
<option value="">any</option>
${TASK_STATUSES.map((s) => html`<option value="${s}" ${v.filter.status === s ? 'selected' : ''}>${s}</option>`)}
</select></label>
<label title="a wall time in the timer's zone (YYYY-MM-DD HH:mm:ss), an ISO time with offset, or epoch ms">At or before <input name="at" value="${v.atText ?? ''}" placeholder="2026-01-31 10:05:03" size="20"></label>
<button type="submit">Show</button>
${filtered ? html`<a href="${base}">latest</a>` : ''}
${liveBox(3000)}
</form>
<div id="runs-live" data-live>
${
  v.runs.length === 0
    ? html`<p class="muted" id="no-runs">No runs${filtered ? ' match' : ' yet'}.</p>`
    : html`<div class="table-box"><table id="runs-table">
<thead><tr><th>Scheduled (${timer.timezone})</th><th>Status</th><th class="num" title="how late the first call left">Lateness</th><th class="num">Attempts</th><th class="num">HTTP</th><th class="num hide-narrow">Duration</th><th>Response / error</th><th>Trigger</th><th>Task key (board)</th><th></th></tr></thead>
<tbody>${v.runs.map((t) => runRow(t, v))}</tbody>
</table></div>`
}
<div class="pager">${
    v.nextCursor
      ? html`<a href="${base}${query({ status: v.filter.status, at: v.filter.at, cursor: v.nextCursor })}#runs">older runs →</a>`
      : ''
  }</div>
</div>
<h2 id="changes">Changes <a class="small" href="${v.paths.audit}${query({ timerId: timer.id })}">all →</a></h2>
${auditTable(v.changes, v, false)}`;
  return layout({ title: timer.name, here: 'timers', ctx: v, body });
}

/** The confirm step of a delete: a page with one button, so a stray click deletes nothing. */
export function deleteConfirmPage(ctx: PageContext, timer: Timer): Markup {
  const base = `${ctx.paths.timers}/${timer.id}`;
  const body = html`<p class="muted"><a href="${ctx.paths.timers}">Timers</a> / <a href="${base}">${timer.name}</a></p>
<h1>Delete timer ${timer.name}?</h1>
<p>Timer ${timer.id} of app ${timer.app} and its run history go, and its pending runs are cancelled. This cannot be undone.</p>
<p class="actions">${postButton(ctx, `${base}/delete`, 'Delete', { name: 'confirm-delete', kind: 'danger' })}
<a class="button" href="${base}">Cancel</a></p>`;
  return layout({ title: `Delete ${timer.name}`, here: 'timers', ctx, body });
}

export function errorPage(status: number, message: string, ctx: ShellContext): Markup {
  const { paths } = ctx;
  return layout({
    title: `Error ${status}`,
    here: 'timers',
    ctx,
    body: html`<h1>${status === 404 ? 'Not found' : 'Something went wrong'}</h1><p class="error">${message}</p><p><a href="${paths.timers}">Back to the timers</a></p>`,
  });
}
