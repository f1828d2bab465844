import { html } from 'hono/html';
import { taskKey } from '../src/domain/task-key.js';
import { formatInZone } from '../src/domain/time-zone.js';
import {
  TASK_STATUSES,
  type Task,
  type TaskStatus,
  TIMER_STATUSES,
  type Timer,
  type TimerStatus,
} from '../src/domain/timer.js';
import { type LatenessSample, latenessHistogram, latenessStats, sparkline } from './lateness-chart.js';
import { badge, type DashboardPaths, layout, type Markup } from './layout.js';

/**
 * The timers page as HTML, from data the routes gathered. Every value from a user (app,
 * name, URL, output, error) goes through hono/html's escaping interpolation.
 */

/** `2026-11-22 10:05:03 +08:00` (milliseconds only when there are some). */
export function zoned(ms: number, timeZone: string): string {
  const iso = formatInZone(ms, timeZone);
  const [date, rest] = iso.split('T') as [string, string];
  const time = rest.slice(0, 12).replace(/\.000$/, '');
  return `${date} ${time} ${rest.slice(12)}`;
}

export function latencyOf(t: Task): number | null {
  return t.firedAt === null ? null : t.firedAt - t.runAt;
}

export function samplesOf(tasks: readonly Task[]): LatenessSample[] {
  return tasks.flatMap((t) =>
    t.firedAt === null ? [] : [{ runAt: t.runAt, latencyMs: t.firedAt - t.runAt }],
  );
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** What makes the timer fire: its cron, or its one-shot time. */
function scheduleText(timer: Timer): string {
  return timer.cron ?? `once at ${zoned(timer.at ?? 0, timer.timezone)}`;
}

function toggleForm(timer: Timer, paths: DashboardPaths, back: string): Markup {
  // A completed timer has no run left to make: enabling it would be refused.
  if (timer.status === 'completed') return html``;
  const active = timer.status === 'active';
  return html`<form class="inline" method="post" action="${paths.timers}/${timer.id}/${active ? 'disable' : 'enable'}">
<input type="hidden" name="back" value="${back}">
<button type="submit" class="${active ? 'danger' : 'go'}" data-action="${active ? 'disable' : 'enable'}">${active ? 'Disable' : 'Enable'}</button>
</form>`;
}

// ---------------------------------------------------------------- the list

export interface TimerRow {
  timer: Timer;
  /** The next fire times (ms). */
  next: number[];
  /** Recent runs up to now, newest first. */
  recent: Task[];
}

export interface TimersListView {
  rows: TimerRow[];
  filter: { app?: string | undefined; status?: TimerStatus | undefined };
  cursor?: string | undefined;
  nextCursor: string | null;
  /** This page's own URL (path and query), where the enable/disable forms come back to. */
  self: string;
  paths: DashboardPaths;
}

function timerRow(row: TimerRow, v: TimersListView): Markup {
  const { timer } = row;
  const last = row.recent[0];
  return html`<tr id="timer-${timer.id}" data-timer-id="${timer.id}">
<td class="num mono">${timer.id}</td>
<td><a href="${v.paths.timers}/${timer.id}">${timer.name}</a></td>
<td data-field="status">${badge(timer.status)}</td>
<td class="mono">${scheduleText(timer)}</td>
<td class="hide-narrow">${timer.timezone}</td>
<td class="next mono">${row.next.length === 0 ? html`<span class="muted">none</span>` : row.next.map((ms) => html`<div>${zoned(ms, timer.timezone)}</div>`)}</td>
<td>${sparkline(samplesOf(row.recent))}</td>
<td>${last ? html`${badge(last.status)} <span class="muted mono" title="${new Date(last.runAt).toISOString()}">${zoned(last.runAt, timer.timezone).slice(11, 19)}</span>` : html`<span class="muted">—</span>`}</td>
<td>${toggleForm(timer, v.paths, v.self)}</td>
</tr>`;
}

export function timersListPage(v: TimersListView): Markup {
  const apps = new Map<string, TimerRow[]>();
  for (const row of v.rows) {
    const list = apps.get(row.timer.app) ?? [];
    list.push(row);
    apps.set(row.timer.app, list);
  }
  const sections = [...apps.keys()].sort().map((app) => {
    const rows = apps.get(app)!;
    return html`<section class="app" data-app="${app}">
<div class="app-head"><h2><a href="${v.paths.timers}${query({ app, status: v.filter.status })}">${app}</a></h2>
<span class="muted">${rows.length} timer${rows.length === 1 ? '' : 's'}${v.nextCursor || v.cursor ? ' on this page' : ''}</span></div>
<table>
<thead><tr><th class="num">ID</th><th>Name</th><th>Status</th><th>Cron</th><th class="hide-narrow">Time zone</th><th>Next fire times</th><th>Lateness (last runs)</th><th>Last run</th><th></th></tr></thead>
<tbody>${rows.map((row) => timerRow(row, v))}</tbody>
</table>
</section>`;
  });
  const body = html`<h1>Timers</h1>
<form class="filters" method="get" action="${v.paths.timers}">
<label>App <input name="app" value="${v.filter.app ?? ''}" placeholder="all apps" size="16"></label>
<label>Status <select name="status">
<option value="">any</option>
${TIMER_STATUSES.map((s) => html`<option value="${s}" ${v.filter.status === s ? 'selected' : ''}>${s}</option>`)}
</select></label>
<button type="submit">Filter</button>
${v.filter.app || v.filter.status ? html`<a href="${v.paths.timers}">clear</a>` : ''}
<span class="muted">Lateness bars: green ≤ 10 ms, amber ≤ 250 ms, red above (log scale).</span>
</form>
${v.rows.length === 0 ? html`<p class="muted">No timers${v.filter.app || v.filter.status ? ' match this filter' : ' yet: create one with POST /api/v1/timers'}.</p>` : sections}
<div class="pager">
${v.cursor ? html`<a href="${v.paths.timers}${query({ app: v.filter.app, status: v.filter.status })}">← first page</a> · ` : ''}
${v.nextCursor ? html`<a href="${v.paths.timers}${query({ app: v.filter.app, status: v.filter.status, cursor: v.nextCursor })}">next page →</a>` : ''}
</div>`;
  return layout({ title: 'Timers', here: 'timers', paths: v.paths, body });
}

// ---------------------------------------------------------------- one timer

export interface TimerDetailView {
  timer: Timer;
  next: number[];
  runs: Task[];
  /** Lateness of the recent fired runs (for the chart), newest first. */
  lateness: LatenessSample[];
  filter: { status?: TaskStatus | undefined; at?: number | undefined };
  /** The raw `at` text, to show back in the form. */
  atText?: string | undefined;
  cursor?: string | undefined;
  nextCursor: string | null;
  self: string;
  paths: DashboardPaths;
}

function runRow(t: Task, v: TimerDetailView): Markup {
  const key = taskKey(t.timerId, t.runAt);
  const late = latencyOf(t);
  const focus = v.filter.at !== undefined && t.runAt === v.filter.at;
  return html`<tr id="run-${key}" class="${focus ? 'focus' : ''}" data-status="${t.status}">
<td class="mono" title="${new Date(t.runAt).toISOString()}">${zoned(t.runAt, v.timer.timezone)}</td>
<td>${badge(t.status)}</td>
<td class="num">${t.attempts}</td>
<td class="num" data-field="lateness">${late === null ? '—' : `${late} ms`}</td>
<td class="num">${t.httpStatus ?? '—'}</td>
<td class="num hide-narrow">${t.durationMs === null ? '—' : `${t.durationMs} ms`}</td>
<td><div class="output mono">${t.output ?? ''}</div>${t.error ? html`<div class="output mono" style="color: var(--bad)">${t.error}</div>` : ''}</td>
<td class="mono"><a href="${v.paths.board}/queue/execute/${key}" title="this run's execute job on the board (kept about an hour after it completes)">${key}</a></td>
</tr>`;
}

export function timerDetailPage(v: TimerDetailView): Markup {
  const { timer } = v;
  const cb = timer.callback;
  const stats = latenessStats(v.lateness.map((s) => s.latencyMs));
  const headerCount = Object.keys(cb.headers).length;
  const body = html`<p class="muted"><a href="${v.paths.timers}">Timers</a> / <a href="${v.paths.timers}?app=${encodeURIComponent(timer.app)}">${timer.app}</a></p>
<h1>${timer.name} <span data-field="status">${badge(timer.status)}</span> ${toggleForm(timer, v.paths, v.self)}</h1>
<p class="muted">Timer ${timer.id} of app ${timer.app}</p>
<div class="cols">
<div class="card"><h2>Definition</h2>
<dl class="def">
<dt>${timer.cron === null ? 'Fires' : 'Cron'}</dt><dd class="mono">${scheduleText(timer)}</dd>
<dt>Time zone</dt><dd>${timer.timezone}</dd>
<dt>Callback</dt><dd class="mono">${cb.method} ${cb.url}</dd>
<dt>Headers</dt><dd>${headerCount === 0 ? '—' : Object.keys(cb.headers).join(', ')}</dd>
<dt>Body</dt><dd>${cb.body === null || cb.body === '' ? '—' : `${Buffer.byteLength(cb.body)} bytes`}</dd>
<dt>Timeout</dt><dd>${cb.timeoutMs} ms</dd>
<dt>Retry</dt><dd>${timer.retry.maxAttempts} attempt${timer.retry.maxAttempts === 1 ? '' : 's'}, backoff ${timer.retry.backoffMs} ms</dd>
<dt>Misfire</dt><dd>${timer.misfirePolicy} after ${timer.misfireThresholdMs} ms</dd>
<dt>Created</dt><dd>${zoned(timer.createdAt.getTime(), timer.timezone)}</dd>
<dt>Updated</dt><dd>${zoned(timer.updatedAt.getTime(), timer.timezone)}</dd>
</dl></div>
<div class="card"><h2>Next fire times <span class="muted">(${timer.timezone})</span></h2>
${timer.status === 'inactive' ? html`<p class="muted">Inactive: these fire only once the timer is enabled.</p>` : ''}
<div class="next mono">${v.next.map((ms) => html`<div>${zoned(ms, timer.timezone)}</div>`)}</div>
</div>
</div>
<div class="card" style="margin-top: 24px"><h2>Lateness of the last ${v.lateness.length} fired runs</h2>
${stats ? html`<p class="stats mono"><span>p50 ${stats.p50} ms</span><span>p95 ${stats.p95} ms</span><span>p99 ${stats.p99} ms</span><span>max ${stats.max} ms</span></p>` : ''}
<div style="display: flex; gap: 32px; align-items: flex-end; flex-wrap: wrap">
${latenessHistogram(v.lateness.map((s) => s.latencyMs))}
${v.lateness.length > 0 ? html`<div><div class="muted" style="font-size: 12px">run by run, oldest left (log scale)</div>${sparkline(v.lateness, 360, 60)}</div>` : ''}
</div></div>
<h2 id="runs">Runs</h2>
<form class="filters" method="get" action="${v.paths.timers}/${timer.id}">
<label>Status <select name="status">
<option value="">any</option>
${TASK_STATUSES.map((s) => html`<option value="${s}" ${v.filter.status === s ? 'selected' : ''}>${s}</option>`)}
</select></label>
<label title="a wall time in the timer's zone (YYYY-MM-DD HH:mm:ss), an ISO time with offset, or epoch ms">At or before <input name="at" value="${v.atText ?? ''}" placeholder="2026-01-31 10:05:03" size="22"></label>
<button type="submit">Show</button>
${v.filter.status || v.filter.at !== undefined ? html`<a href="${v.paths.timers}/${timer.id}">latest</a>` : ''}
<label class="muted"><input type="checkbox" id="auto"> refresh every 5 s</label>
</form>
${
  v.runs.length === 0
    ? html`<p class="muted" id="no-runs">No runs${v.filter.status || v.filter.at !== undefined ? ' match' : ' yet'}.</p>`
    : html`<table id="runs-table">
<thead><tr><th>Scheduled (${timer.timezone})</th><th>Status</th><th class="num">Attempts</th><th class="num">Lateness</th><th class="num">HTTP</th><th class="num hide-narrow">Duration</th><th>Response / error</th><th>Task key (board)</th></tr></thead>
<tbody>${v.runs.map((t) => runRow(t, v))}</tbody>
</table>`
}
<div class="pager">${
    v.nextCursor
      ? html`<a href="${v.paths.timers}/${timer.id}${query({ status: v.filter.status, at: v.filter.at, cursor: v.nextCursor })}#runs">older runs →</a>`
      : ''
  }</div>`;
  return layout({ title: timer.name, here: 'timers', paths: v.paths, body, script: AUTO_REFRESH });
}

/** The page's only script: an opt-in reload, remembered per browser. */
const AUTO_REFRESH = `(function () {
  var key = 'xtimer.autorefresh', box = document.getElementById('auto'), t;
  if (!box) return;
  box.checked = localStorage.getItem(key) === '1';
  function arm() { clearTimeout(t); if (box.checked) t = setTimeout(function () { location.reload(); }, 5000); }
  box.addEventListener('change', function () { localStorage.setItem(key, box.checked ? '1' : '0'); arm(); });
  arm();
})();`;

export function errorPage(status: number, message: string, paths: DashboardPaths): Markup {
  return layout({
    title: `Error ${status}`,
    here: 'timers',
    paths,
    body: html`<h1>${status === 404 ? 'Not found' : 'Something went wrong'}</h1><p class="error">${message}</p><p><a href="${paths.timers}">Back to the timers</a></p>`,
  });
}
