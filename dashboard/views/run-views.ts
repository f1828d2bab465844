import { html } from 'hono/html';
import { taskKey } from '../../src/domain/plan/task-key.js';
import { latenessOf, type Timer } from '../../src/domain/timer.js';
import type { RunDetail } from '../../src/services/runs/run-detail.js';
import { badge, layout, type Markup, notice, type PageContext, postButton, when } from './layout.js';

export interface RunInspectorView extends PageContext {
  timer: Timer;
  detail: RunDetail;
  self: string;
  done?: string | undefined;
  task?: string | undefined;
}

/** What made the run, as people say it. */
const TRIGGERS: Record<string, string> = {
  schedule: 'its schedule',
  manual: 'Run now',
  retry: 'a retry',
  backfill: 'a backfill',
};

const bytes = (n: number) => `${n} byte${n === 1 ? '' : 's'}`;

function headerList(headers: Record<string, string>): Markup {
  return html`<dl class="def mono small" data-field="request-headers">${Object.entries(headers).map(
    ([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`,
  )}</dl>`;
}

/**
 * A run opened: its trigger and outcome, the request its attempts send and the answer the
 * latest attempt got. Only the latest attempt's answer is kept; earlier ones are counted.
 */
export function runInspectorPage(v: RunInspectorView): Markup {
  const { timer, detail } = v;
  const { task: t, request: r, latest } = detail;
  const key = taskKey(t.timerId, t.runAt);
  const zone = timer.timezone;
  const late = latenessOf(t);
  const retryable = t.status === 'failed' || t.status === 'missed';
  const body = html`<p class="muted"><a href="${v.paths.timers}">Timers</a> / <a href="${v.paths.timers}/${timer.id}">${timer.name}</a> / run</p>
<h1><span class="mono">${key}</span> <span data-field="run-status">${badge(t.status)}</span>
<span class="actions">${
    retryable
      ? postButton(v, `${v.paths.timers}/${timer.id}/runs/${key}/retry`, 'Retry', {
          back: v.self,
          name: 'retry',
          title: 'call this run again, as its next attempt',
        })
      : ''
  }</span></h1>
${notice(v.done, v.task)}
<div class="cols">
<div class="card"><h2>Run</h2><dl class="def">
<dt>Scheduled</dt><dd>${when(t.runAt, zone)}</dd>
<dt>Trigger</dt><dd data-field="trigger" data-trigger="${t.trigger}">${TRIGGERS[t.trigger] ?? t.trigger}</dd>
<dt>Attempts</dt><dd data-field="attempts">${t.attempts}</dd>
<dt>First sent</dt><dd>${t.firstFiredAt === null ? '—' : when(t.firstFiredAt, zone)}</dd>
<dt>Lateness</dt><dd>${late === null ? '—' : `${late} ms`}</dd>
</dl></div>
<div class="card" id="request"><h2>Request <span class="muted small">(each attempt)</span></h2>
<p class="mono" data-field="request-line">${r.method} ${r.url}</p>
${headerList(r.headers)}
${r.signed ? html`<p class="muted small">Signed: each attempt adds webhook-id, webhook-timestamp and webhook-signature.</p>` : ''}
<h3>Body <span class="muted small" data-field="request-bytes">${bytes(r.bodyBytes)}</span></h3>
${r.body === null || r.body === '' ? html`<p class="muted">none</p>` : html`<pre class="output mono" data-field="request-body">${r.body}</pre>`}
<p class="muted small">Rebuilt from the timer's callback as it is now; secret header values show as ***.</p>
</div>
</div>
<div class="card" id="response" style="margin-top: 24px"><h2>Response ${latest ? html`<span class="muted small">(attempt ${latest.attempt} of ${t.attempts})</span>` : ''}</h2>
${
  latest === null
    ? html`<p class="muted" data-field="no-attempt">Not called yet.</p>`
    : html`<dl class="def">
<dt>Sent</dt><dd>${latest.sentAt === null ? '—' : when(latest.sentAt, zone)}</dd>
<dt>Status</dt><dd data-field="response-status">${latest.httpStatus ?? '—'}</dd>
<dt>Duration</dt><dd data-field="duration">${latest.durationMs === null ? '—' : `${latest.durationMs} ms`}</dd>
<dt>Error</dt><dd data-field="error" style="color: var(--bad)">${latest.error ?? '—'}</dd>
<dt>Headers</dt><dd class="muted">not kept</dd>
<dt>Body</dt><dd><span class="muted small" data-field="response-bytes">${bytes(latest.outputBytes)} kept (the start of the body)</span>
${latest.output ? html`<pre class="output mono" data-field="response-body">${latest.output}</pre>` : ''}</dd>
</dl>
${t.attempts > 1 ? html`<p class="muted small">Earlier attempts (${t.attempts - 1}) are counted, their answers not kept: the run keeps its latest.</p>` : ''}`
}
</div>`;
  return layout({ title: `Run ${key}`, here: 'timers', ctx: v, body });
}
