import { html } from 'hono/html';
import { csrfField, type DashboardPaths, type Markup, type PageContext, query } from './layout.js';

/** What a bulk action did, as the page it comes back to reads it from its query. */
export interface BulkOutcome {
  action: 'pause' | 'resume' | 'trigger';
  changed: number;
  selected: number;
  batchId: string;
}

const SAID = { pause: 'Paused', resume: 'Resumed', trigger: 'Ran now' } as const;

/** The filter a "select all matching the filter" stands for. */
export interface BulkFilter {
  app?: string | undefined;
  status?: string | undefined;
  labels: string[];
  q?: string | undefined;
}

/**
 * The bulk actions above the timers list: each row's box belongs to this form (`form=`), so
 * the rows' own buttons keep their forms. "select all matching the filter" carries the
 * filter instead of the boxes; the note and until go with Pause selected only.
 */
export function bulkForm(v: PageContext & { self: string; filter: BulkFilter }): Markup {
  const f = v.filter;
  const hidden = (name: string, value: string | undefined) =>
    value === undefined || value === '' ? '' : html`<input type="hidden" name="f-${name}" value="${value}">`;
  return html`<form id="bulk" class="filters bulk" method="post" action="${v.paths.timers}/bulk">${csrfField(v)}
<input type="hidden" name="back" value="${v.self}">
${hidden('app', f.app)}${hidden('status', f.status)}${hidden('q', f.q)}${f.labels.map((l) => hidden('label', l))}
<label><input type="checkbox" name="all" value="1" data-action="select-all"> select all matching the filter</label>
<label>Note <input name="note" placeholder="why (for Pause selected)" size="22"></label>
<label title="an ISO time with offset, epoch ms, a wall time in UTC, or a duration from now (30m, 2h)">Until <input name="until" placeholder="2h or 2026-01-31 10:00:00" size="18"></label>
<button type="submit" name="action" value="pause" data-action="bulk-pause">Pause selected</button>
<button type="submit" name="action" value="resume" data-action="bulk-resume">Resume selected</button>
<button type="submit" name="action" value="trigger" data-action="bulk-trigger">Run now</button>
</form>`;
}

/** "Paused 2 of 3 selected timers", with the batch's changes one click away. */
export function bulkNotice(paths: DashboardPaths, b: BulkOutcome | undefined): Markup {
  if (!b) return html``;
  return html`<p class="notice" role="status" data-done="bulk-${b.action}" data-changed="${b.changed}">${SAID[b.action]} ${b.changed} of ${b.selected} selected timer${b.selected === 1 ? '' : 's'}. <a href="${paths.audit}${query({ batchId: b.batchId })}">The batch's changes</a></p>`;
}

/** The outcome in a page's query (`bulk`, `changed`, `selected`, `batch`), if it is one a bulk action wrote. */
export function bulkOutcomeOf(q: (name: string) => string | undefined): BulkOutcome | undefined {
  const action = q('bulk');
  const [changed, selected, batchId] = [q('changed'), q('selected'), q('batch')];
  if (action !== 'pause' && action !== 'resume' && action !== 'trigger') return undefined;
  if (!/^\d{1,4}$/.test(changed ?? '') || !/^\d{1,4}$/.test(selected ?? '')) return undefined;
  if (!/^[0-9a-f-]{36}$/.test(batchId ?? '')) return undefined;
  return { action, changed: Number(changed), selected: Number(selected), batchId: batchId! };
}
