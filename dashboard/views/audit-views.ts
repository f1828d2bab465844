import { html } from 'hono/html';
import type { AuditEntry, AuditFields } from '../../src/domain/audit.js';
import { ALL_APPS } from '../../src/services/apps/service-pause.js';
import { layout, type Markup, type PageContext, query, when } from './layout.js';

/** The audit log as HTML: per timer (on its page), per app, or all of it. */

const MAX_VALUE_CHARS = 200;

function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}… (${text.length} chars)` : text;
}

function fieldList(fields: AuditFields): Markup {
  return html`${Object.entries(fields).map(
    ([name, value]) =>
      html`<div><span class="field">${name}:</span> <span class="mono">${shown(value)}</span></div>`,
  )}`;
}

/** What an entry changed: each field before → after; a create or delete folded (every field), a run by its task key. */
function changeOf(e: AuditEntry): Markup {
  const before = e.before ?? {};
  const after = e.after ?? {};
  if (e.before === null || e.after === null) {
    const fields = e.before ?? e.after ?? {};
    const n = Object.keys(fields).length;
    if (n <= 3) return fieldList(fields);
    return html`<details><summary>${n} fields</summary>${fieldList(fields)}</details>`;
  }
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (names.length === 0) return html`<span class="muted">no field changed</span>`;
  return html`${names.map(
    (name) =>
      html`<div><span class="field">${name}:</span> <del class="mono">${shown(before[name])}</del> → <ins class="mono">${shown(after[name])}</ins></div>`,
  )}`;
}

export function auditTable(entries: readonly AuditEntry[], ctx: PageContext, showTimer: boolean): Markup {
  if (entries.length === 0) return html`<p class="muted" id="no-changes">No changes recorded.</p>`;
  return html`<div class="table-box"><table id="audit-table">
<thead><tr><th>When (UTC)</th><th>Actor</th><th>Action</th>${showTimer ? html`<th>App</th><th>Timer</th>` : ''}<th>Changed</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr data-action="${e.action}" data-actor="${e.actor}">
<td class="mono nowrap">${when(e.at, 'UTC')}</td>
<td class="mono">${e.actor}</td>
<td><span class="badge">${e.action}</span>${e.batchId ? html` <span class="muted small" title="batch">${e.batchId}</span>` : ''}</td>
${
  showTimer
    ? html`<td>${
        // A pause of every app names no app to filter by.
        e.app === ALL_APPS
          ? html`<span class="muted">every app</span>`
          : html`<a href="${ctx.paths.audit}${query({ app: e.app })}">${e.app}</a>`
      }</td><td class="num">${
        e.timerId === null ? '—' : html`<a href="${ctx.paths.timers}/${e.timerId}">${e.timerId}</a>`
      }</td>`
    : ''
}
<td class="change">${changeOf(e)}</td>
</tr>`,
  )}</tbody>
</table></div>`;
}

export interface AuditPageView extends PageContext {
  entries: AuditEntry[];
  filter: { app?: string | undefined; timerId?: number | undefined };
  nextCursor: string | null;
}

export function auditPage(v: AuditPageView): Markup {
  const { app, timerId } = v.filter;
  const body = html`<h1>Changes</h1>
<p class="muted">Every change made through the API or this dashboard: who (admin, open — no admin token set — or an app key's id), what, and the fields before → after. Credentials are masked.</p>
<form class="filters" method="get" action="${v.paths.audit}">
<label>App <input name="app" value="${app ?? ''}" placeholder="all apps" size="16"></label>
<label>Timer <input name="timerId" value="${timerId ?? ''}" placeholder="any" size="8" inputmode="numeric"></label>
<button type="submit">Show</button>
${app || timerId ? html`<a href="${v.paths.audit}">all</a>` : ''}
</form>
${auditTable(v.entries, v, true)}
<div class="pager">${
    v.nextCursor
      ? html`<a href="${v.paths.audit}${query({ app, timerId, cursor: v.nextCursor })}">older changes →</a>`
      : ''
  }</div>`;
  return layout({ title: 'Changes', here: 'audit', ctx: v, body });
}
