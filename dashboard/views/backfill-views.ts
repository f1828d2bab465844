import { html } from 'hono/html';
import type { presentBackfill } from '../../http/presenters.js';
import type { Timer } from '../../src/domain/timer.js';
import type { BackfillPreview } from '../../src/services/runs/backfill-service.js';
import {
  badge,
  csrfField,
  layout,
  liveBox,
  type Markup,
  notice,
  type PageContext,
  postButton,
  when,
} from './layout.js';

/** A backfill as the API answers it: planned, sent, done and failed counted for the page. */
export type BackfillShown = ReturnType<typeof presentBackfill>;

export interface BackfillFormView extends PageContext {
  timer: Timer;
  /** The range as typed (wall times in the timer's zone). */
  fromText: string;
  toText: string;
  /** What the range would do, once one is typed and accepted. */
  preview?: (BackfillPreview & { from: number; to: number }) | undefined;
  error?: string | undefined;
  /** The timer's latest backfills, newest first. */
  backfills: BackfillShown[];
}

export interface BackfillProgressView extends PageContext {
  timer: Timer;
  backfill: BackfillShown;
  done?: string | undefined;
}

const ENDED = new Set(['completed', 'cancelled']);

function crumbs(ctx: PageContext, timer: Timer): Markup {
  return html`<p class="muted"><a href="${ctx.paths.timers}">Timers</a> / <a href="${ctx.paths.timers}/${timer.id}">${timer.name}</a></p>`;
}

/** Planned, sent, done and failed: the four counts a backfill is watched by. */
function counts(b: BackfillShown): Markup {
  const cell = (name: string, n: number) =>
    html`<div><dt>${name}</dt><dd class="num" data-count="${name.toLowerCase()}">${n}</dd></div>`;
  return html`<dl class="counts">${cell('Planned', b.planned)}${cell('Sent', b.sent)}${cell('Done', b.done)}${cell('Failed', b.failed)}</dl>`;
}

function backfillRow(ctx: PageContext, timer: Timer, b: BackfillShown): Markup {
  const zone = timer.timezone;
  return html`<tr data-backfill="${b.id}"><td><a href="${ctx.paths.timers}/${timer.id}/backfills/${b.id}">${b.id}</a></td>
<td class="mono nowrap">${when(Date.parse(b.from), zone)}</td><td class="mono nowrap">${when(Date.parse(b.to), zone)}</td>
<td>${badge(b.status)}</td><td class="num">${b.planned}</td><td class="num">${b.sent}</td><td class="num">${b.done}</td><td class="num">${b.failed}</td></tr>`;
}

/** The "Backfill" control: a range, what it would run, then the button that starts it. */
export function backfillFormPage(v: BackfillFormView): Markup {
  const { timer } = v;
  const base = `${v.paths.timers}/${timer.id}/backfills`;
  const p = v.preview;
  const body = html`${crumbs(v, timer)}
<h1>Backfill ${timer.name}</h1>
<p class="muted">Runs the timer's schedule over a past range, paced at BACKFILL_RATE. Instants its run history has already are left alone. Times are wall times in ${timer.timezone} (or ISO times with offset).</p>
<form class="filters" method="get" action="${base}" id="backfill-range">
<label>From <input name="from" value="${v.fromText}" placeholder="2026-01-31 00:00:00" size="20" required></label>
<label>To <input name="to" value="${v.toText}" placeholder="2026-01-31 12:00:00" size="20" required></label>
<button type="submit" data-action="backfill-preview">Preview</button>
</form>
${v.error ? html`<p class="error" role="alert" data-field="range">${v.error}</p>` : ''}
${
  p
    ? html`<div class="card" id="backfill-preview"><p><strong data-count="runs">${p.runs}</strong> run${p.runs === 1 ? '' : 's'} in the range; <strong data-count="planned">${p.planned}</strong> would be sent (${p.runs - p.planned} already in the history).</p>
<form class="inline" method="post" action="${base}">${csrfField(v)}<input type="hidden" name="from" value="${p.from}"><input type="hidden" name="to" value="${p.to}">
<button type="submit" class="go" data-action="start-backfill" ${p.planned === 0 ? 'disabled' : ''}>Start backfill</button></form></div>`
    : ''
}
<h2>Backfills of this timer</h2>
${
  v.backfills.length === 0
    ? html`<p class="muted" id="no-backfills">None yet.</p>`
    : html`<div class="table-box"><table id="backfills-table"><thead><tr><th>#</th><th>From</th><th>To</th><th>Status</th><th class="num">Planned</th><th class="num">Sent</th><th class="num">Done</th><th class="num">Failed</th></tr></thead>
<tbody>${v.backfills.map((b) => backfillRow(v, timer, b))}</tbody></table></div>`
}`;
  return layout({ title: `Backfill ${timer.name}`, here: 'timers', ctx: v, body });
}

/** One backfill's progress, refreshed live until it has completed or was cancelled. */
export function backfillProgressPage(v: BackfillProgressView): Markup {
  const { timer, backfill: b } = v;
  const ended = ENDED.has(b.status);
  const body = html`${crumbs(v, timer)}
<h1>Backfill ${b.id} of ${timer.name}</h1>
${notice(v.done, undefined)}
<p class="muted">From ${when(Date.parse(b.from), timer.timezone)} to ${when(Date.parse(b.to), timer.timezone)}: ${b.runs} instants, started by ${b.createdBy ?? 'xtimer'}.</p>
${ended ? '' : html`<p>${liveBox(2000)}</p>`}
<div id="backfill-live" data-live>
<p>Status <span data-field="backfill-status">${badge(b.status)}</span></p>
${counts(b)}
${
  ended
    ? ''
    : html`<p>${postButton(v, `${v.paths.timers}/${timer.id}/backfills/${b.id}/cancel`, 'Cancel backfill', {
        name: 'cancel-backfill',
        kind: 'danger',
        title: 'remove its runs not yet sent; those sent end as they will',
      })}</p>`
}
</div>
<p><a href="${v.paths.timers}/${timer.id}#runs">Its runs on the timer's page</a> · <a href="${v.paths.timers}/${timer.id}/backfills">Another backfill</a></p>`;
  return layout({ title: `Backfill ${b.id}`, here: 'timers', ctx: v, body });
}
