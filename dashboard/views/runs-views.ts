import { html } from 'hono/html';
import { taskKey } from '../../src/domain/plan/task-key.js';
import { latenessOf, sinceBackfillStartOf, type Task, type Timer } from '../../src/domain/timer.js';
import { badge, layout, type Markup, notice, type PageContext, postButton, query, when } from './layout.js';

/** The failed (or missed) runs of every timer, newest first, each one click from a retry. */

export const LISTED_STATUSES = ['failed', 'missed'] as const;
export type ListedStatus = (typeof LISTED_STATUSES)[number];

export interface RunsPageView extends PageContext {
  status: ListedStatus;
  app?: string | undefined;
  runs: Task[];
  /** The runs' timers by id (a run whose timer is gone has none). */
  timers: Map<number, Timer>;
  nextCursor: string | null;
  self: string;
  done?: string | undefined;
  task?: string | undefined;
}

function runRow(t: Task, timer: Timer | undefined, v: RunsPageView): Markup {
  const key = taskKey(t.timerId, t.runAt);
  const zone = timer?.timezone ?? 'UTC';
  const late = latenessOf(t);
  const since = sinceBackfillStartOf(t);
  return html`<tr id="run-${key}" data-status="${t.status}">
<td class="mono nowrap">${timer ? html`<a href="${v.paths.timers}/${t.timerId}/runs/${key}" data-action="inspect">${when(t.runAt, zone)}</a>` : when(t.runAt, zone)}</td>
<td>${timer ? html`<a href="${v.paths.timers}/${t.timerId}${query({ at: t.runAt })}">${timer.name}</a>` : html`timer ${t.timerId}`} <span class="muted small">${t.app}</span></td>
<td>${badge(t.status)}</td>
<td class="num">${late !== null ? `${late} ms` : since !== null ? `+${since} ms into the backfill` : '—'}</td>
<td class="num">${t.attempts}</td>
<td class="num">${t.httpStatus ?? '—'}</td>
<td><div class="output mono" style="color: var(--bad)">${t.error ?? ''}</div></td>
<td>${timer ? postButton(v, `${v.paths.timers}/${t.timerId}/runs/${key}/retry`, 'Retry', { back: v.self, name: 'retry' }) : ''}</td>
</tr>`;
}

export function runsPage(v: RunsPageView): Markup {
  const body = html`<h1>${v.status === 'failed' ? 'Failed' : 'Missed'} runs</h1>
<p class="muted">The runs of every timer that ended ${v.status}, newest first (kept for TASK_RETENTION_DAYS). On the queues board their execute jobs show as completed, with the verdict in their result.</p>
${notice(v.done, v.task)}
<form class="filters" method="get" action="${v.paths.runs}">
<label>Status <select name="status">${LISTED_STATUSES.map(
    (s) => html`<option value="${s}" ${v.status === s ? 'selected' : ''}>${s}</option>`,
  )}</select></label>
<label>App <input name="app" value="${v.app ?? ''}" placeholder="all apps" size="16"></label>
<button type="submit">Show</button>
</form>
${
  v.runs.length === 0
    ? html`<p class="muted" id="no-runs">No ${v.status} runs.</p>`
    : html`<div class="table-box"><table id="runs-table">
<thead><tr><th>Scheduled (timer's zone)</th><th>Timer</th><th>Status</th><th class="num">Lateness</th><th class="num">Attempts</th><th class="num">HTTP</th><th>Error</th><th></th></tr></thead>
<tbody>${v.runs.map((t) => runRow(t, v.timers.get(t.timerId), v))}</tbody>
</table></div>`
}
<div class="pager">${
    v.nextCursor
      ? html`<a href="${v.paths.runs}${query({ status: v.status, app: v.app, cursor: v.nextCursor })}">older runs →</a>`
      : ''
  }</div>`;
  return layout({ title: `${v.status} runs`, here: 'runs', ctx: v, body });
}
