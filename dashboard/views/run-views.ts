import { html } from 'hono/html';
import { taskKey } from '../../src/domain/plan/task-key.js';
import { latenessOf, type Timer } from '../../src/domain/timer.js';
import type { AttemptView, RunDetail } from '../../src/services/runs/run-detail.js';
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

function headerList(headers: Record<string, string>, field: string): Markup {
  return html`<dl class="def mono small" data-field="${field}">${Object.entries(headers).map(
    ([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`,
  )}</dl>`;
}

/** The size of a response body: what is kept of it, and the whole when known. */
function bodySize(a: AttemptView): string {
  if (a.httpStatus === null) return 'no response';
  if (a.bodyBytes === null) return `${bytes(a.outputBytes)} kept; whole size unknown`;
  if (a.bodyBytes <= a.outputBytes) return `${bytes(a.bodyBytes)}, kept whole`;
  return `${bytes(a.outputBytes)} kept of ${bytes(a.bodyBytes)}`;
}

/** One attempt's answer: status, duration, error, headers and the start of the body. */
function attemptSection(a: AttemptView, zone: string): Markup {
  const headerBytes =
    a.headers === null ? 0 : Object.entries(a.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
  return html`<section class="attempt" id="attempt-${a.attempt}" data-attempt="${a.attempt}">
<h3>Attempt ${a.attempt} <span class="muted small">${a.sentAt === null ? '' : html`sent ${when(a.sentAt, zone)}`}</span></h3>
<dl class="def">
<dt>Status</dt><dd data-field="response-status">${a.httpStatus ?? '—'}</dd>
<dt>Duration</dt><dd data-field="duration">${a.durationMs === null ? '—' : `${a.durationMs} ms`}</dd>
<dt>Error</dt><dd data-field="error" style="color: var(--bad)">${a.error ?? '—'}</dd>
<dt>Headers</dt><dd>${
    a.headers === null
      ? html`<span class="muted">none kept</span>`
      : html`<span class="muted small" data-field="response-header-bytes">${bytes(headerBytes)} kept</span>${headerList(a.headers, 'response-headers')}`
  }</dd>
<dt>Body</dt><dd><span class="muted small" data-field="response-bytes">${bodySize(a)}</span>
${a.output ? html`<pre class="output mono" data-field="response-body">${a.output}</pre>` : ''}</dd>
</dl></section>`;
}

/**
 * A run opened: its trigger and outcome, the request its attempts send and each answer
 * kept (the last four attempts'; older ones are counted).
 */
export function runInspectorPage(v: RunInspectorView): Markup {
  const { timer, detail } = v;
  const { task: t, request: r, attempts } = detail;
  const inFlight = t.status === 'running' && (attempts.at(-1)?.attempt ?? 0) < t.attempts;
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
${headerList(r.headers, 'request-headers')}
${r.signed ? html`<p class="muted small">Signed: each attempt adds webhook-id, webhook-timestamp and webhook-signature.</p>` : html`<p class="small" data-field="unsigned">Not signed: app ${t.app} has no record (POST /api/v1/apps, or <code>xtimer apps create ${t.app}</code>, makes one and its signing secret).</p>`}
<h3>Body <span class="muted small" data-field="request-bytes">${bytes(r.bodyBytes)}</span></h3>
${r.body === null || r.body === '' ? html`<p class="muted">none</p>` : html`<pre class="output mono" data-field="request-body">${r.body}</pre>`}
<p class="muted small">Rebuilt from the timer's callback as it is now, as the latest attempt sent it (each attempt carries its own x-xtimer-attempt); secret header values show as ***.</p>
</div>
</div>
<div class="card" id="response" style="margin-top: 24px"><h2>Responses <span class="muted small" data-field="attempts-kept">(${attempts.length} kept of ${t.attempts} attempt${t.attempts === 1 ? '' : 's'})</span></h2>
${attempts.length === 0 && !inFlight ? html`<p class="muted" data-field="no-attempt">Not called yet.</p>` : ''}
${detail.attemptsNotKept > 0 ? html`<p class="muted small" data-field="attempts-not-kept">The answers of ${detail.attemptsNotKept} earlier attempt${detail.attemptsNotKept === 1 ? '' : 's'} are not kept: a run keeps its last four.</p>` : ''}
${attempts.map((a) => attemptSection(a, zone))}
${inFlight ? html`<section class="attempt" id="attempt-${t.attempts}" data-attempt="${t.attempts}"><h3>Attempt ${t.attempts}</h3><p class="muted" data-field="in-flight">In flight: no answer yet.</p></section>` : ''}
</div>`;
  return layout({ title: `Run ${key}`, here: 'timers', ctx: v, body });
}
