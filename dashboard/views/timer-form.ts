import { html, raw } from 'hono/html';
import { MASK } from '../../src/domain/audit.js';
import {
  HTTP_METHODS,
  MISFIRE_POLICIES,
  NOTIFY_OUTCOMES,
  OVERLAP_POLICIES,
  type Timer,
} from '../../src/domain/timer.js';
import type { Field, FormErrors, FormValues, TextField } from '../timer-form-body.js';
import { csrfField, layout, type Markup, type PageContext, zoned } from './layout.js';

/**
 * The create and edit form as HTML: one form for the three kinds of schedule, chosen by
 * its Schedule box (the other kinds' fields are hidden by CSS, so the choice needs no
 * script), and every setting the API takes. Errors sit beside their field.
 */

const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

export interface TimerFormView extends PageContext {
  mode: 'create' | 'edit';
  /** The timer edited. */
  timer?: Timer | undefined;
  values: FormValues;
  errors: FormErrors;
  /** The live preview's first fire times (the stored schedule's, when editing). */
  preview: { runs: number[]; timezone: string };
  /** The names of the app's calendars, to choose the skipped ones from (empty: none, or the app is not known yet). */
  calendars: string[];
}

/** Which kinds of schedule a row belongs to: shown only while one of them is chosen. */
type Only = 'k-cron' | 'k-every' | 'k-at' | 'k-repeat';

interface FieldOpts {
  type?: string;
  hint?: Markup | string;
  /** Attributes written as they are (escaped, their quotes would break them): constants of this file, never user input. */
  attrs?: string;
  only?: Only;
}

function problems(v: TimerFormView, field: Field): Markup {
  return html`${(v.errors[field] ?? []).map((m) => html`<span class="field-error" data-error-for="${field}">${m}</span>`)}`;
}

const hint = (text: Markup | string | undefined) => (text ? html`<span class="hint">${text}</span>` : '');

function input(v: TimerFormView, field: TextField, label: string, opts: FieldOpts = {}): Markup {
  const cls = opts.only ?? '';
  return html`<label for="f-${field}" class="${cls}">${label}</label><div class="${cls}"><input type="${opts.type ?? 'text'}" id="f-${field}" name="${field}" value="${v.values[field]}" ${raw(opts.attrs ?? '')}>${hint(opts.hint)}${problems(v, field)}</div>`;
}

function select(
  v: TimerFormView,
  field: TextField,
  label: string,
  options: readonly (string | readonly [string, string])[],
  opts: FieldOpts = {},
): Markup {
  return html`<label for="f-${field}">${label}</label><div><select id="f-${field}" name="${field}">${options.map(
    (o) => {
      const [value, text] = typeof o === 'string' ? [o, o] : o;
      return html`<option value="${value}" ${v.values[field] === value ? 'selected' : ''}>${text}</option>`;
    },
  )}</select>${hint(opts.hint)}${problems(v, field)}</div>`;
}

function textarea(v: TimerFormView, field: TextField, label: string, text: string): Markup {
  return html`<label for="f-${field}">${label}</label><div><textarea id="f-${field}" name="${field}" rows="3">${v.values[field]}</textarea>${hint(text)}${problems(v, field)}</div>`;
}

/** The app's calendars as boxes; a chosen name the app lacks stays, so its error shows beside it. */
function calendarBoxes(v: TimerFormView): Markup {
  const names = [...new Set([...v.calendars, ...v.values.skipCalendars])].sort();
  const boxes = names.map(
    (n) =>
      html`<label class="choice"><input type="checkbox" name="skipCalendars" value="${n}" ${v.values.skipCalendars.includes(n) ? 'checked' : ''}> ${n}</label>`,
  );
  return html`<label id="l-skipCalendars" class="k-repeat">Calendars</label><div class="k-repeat"><div role="group" aria-labelledby="l-skipCalendars" id="f-skipCalendars" data-src="${v.paths.timers}/calendars">${
    names.length === 0
      ? html`<span class="muted small" data-empty>${v.values.app ? 'the app has no calendars' : 'the app’s calendars show once the app is given'}</span>`
      : boxes
  }</div>${hint('no run is planned on the dates of the ones ticked (read in the time zone)')}${problems(v, 'skipCalendars')}</div>`;
}

const TIME_HINT = 'YYYY-MM-DD HH:mm:ss in the Time zone, an ISO time with offset, or epoch ms';

export function timerFormPage(v: TimerFormView): Markup {
  const editing = v.mode === 'edit' && v.timer !== undefined;
  const action = editing ? `${v.paths.timers}/${v.timer!.id}/edit` : `${v.paths.timers}/new`;
  const title = editing ? `Edit ${v.timer!.name}` : 'New timer';
  const general = v.errors.general ?? [];
  const wall = 'autocomplete="off" spellcheck="false" placeholder="2026-12-01 09:00:00"';
  const body = html`<p class="muted"><a href="${v.paths.timers}">Timers</a>${editing ? html` / <a href="${v.paths.timers}/${v.timer!.id}">${v.timer!.name}</a>` : ''}</p>
<h1>${title}</h1>
${general.map((m) => html`<p class="error" data-error-for="general">${m}</p>`)}
${Object.keys(v.errors).length > 0 ? html`<p class="error" role="alert">Nothing was saved: correct the fields marked below.</p>` : ''}
<form class="edit" id="timer-form" method="post" action="${action}">
${csrfField(v)}${editing ? html`<input type="hidden" name="version" value="${String(v.timer!.version)}">` : ''}
${editing ? html`<label>App</label><div class="mono" style="padding-top: 5px">${v.timer!.app}</div>` : input(v, 'app', 'App', { attrs: 'required autocomplete="off"' })}
${input(v, 'name', 'Name', { attrs: 'required' })}
<h2 class="wide">When</h2>
${select(
  v,
  'kind',
  'Schedule',
  [
    ['cron', 'Cron'],
    ['every', 'Every'],
    ['at', 'At'],
  ],
  { hint: 'a cron expression, a fixed interval, or once at a time' },
)}
${input(v, 'cron', 'Cron', {
  only: 'k-cron',
  hint: '5 fields (minute hour day month weekday), or 6 with seconds first: 0 30 2 * * *',
  attrs: 'autocomplete="off" spellcheck="false"',
})}
${input(v, 'every', 'Every', {
  only: 'k-every',
  hint: 'a fixed interval in real time: 90s, 15m, 1h30m, 1d (or PT90M)',
  attrs: 'autocomplete="off" spellcheck="false" placeholder="15m"',
})}
${input(v, 'offset', 'Offset', {
  only: 'k-every',
  hint: 'where the runs fall in each interval, from the epoch; shorter than Every. Empty: 0s',
  attrs: 'autocomplete="off" spellcheck="false" placeholder="0s"',
})}
${input(v, 'at', 'At', { only: 'k-at', hint: `once, then it is completed: ${TIME_HINT}`, attrs: wall })}
${input(v, 'timezone', 'Time zone', { hint: 'an IANA zone: Europe/Berlin, Asia/Shanghai, UTC', attrs: 'list="zones" autocomplete="off"' })}
<datalist id="zones">${TIME_ZONES.map((z) => html`<option value="${z}"></option>`)}</datalist>
<label>Next 5 fires</label><div><ul class="preview mono" id="preview" data-src="${v.paths.timers}/preview">${v.preview.runs.map(
    (ms) => html`<li>${zoned(ms, v.preview.timezone)}</li>`,
  )}</ul><span class="hint">of the schedule as typed, from the preview API; nothing is saved until you save</span></div>
${input(v, 'jitterMs', 'Jitter', { only: 'k-repeat', type: 'number', hint: 'ms: each run shifted by a stable amount below this; 0 = none', attrs: 'min="0"' })}
${input(v, 'startAt', 'Start at', { only: 'k-repeat', hint: `no run before; empty: from now. ${TIME_HINT}`, attrs: wall })}
${input(v, 'endAt', 'End at', { only: 'k-repeat', hint: 'no run at or after; then it is completed. Empty: never', attrs: wall })}
${input(v, 'maxRuns', 'Max runs', { only: 'k-repeat', type: 'number', hint: 'at most this many scheduled runs; empty: no limit', attrs: 'min="1"' })}
${calendarBoxes(v)}
<h2 class="wide">Callback</h2>
${input(v, 'callbackUrl', 'Callback URL', { type: 'url', attrs: 'required' })}
${select(v, 'callbackMethod', 'Method', HTTP_METHODS)}
${textarea(v, 'callbackHeaders', 'Headers', `one Name: value a line; ${MASK} keeps a stored credential`)}
${textarea(v, 'callbackBody', 'Body', 'sent as written')}
${input(v, 'callbackTimeoutMs', 'Timeout (ms)', { type: 'number', hint: 'empty: CALLBACK_TIMEOUT_MS' })}
<h2 class="wide">When a run goes wrong</h2>
${input(v, 'retryMaxAttempts', 'Attempts', { type: 'number', hint: 'in all; 1 = no retry' })}
${input(v, 'retryBackoffMs', 'Backoff (ms)', { type: 'number', hint: 'before the second attempt, then doubling, with jitter' })}
${select(v, 'overlapPolicy', 'Overlap', OVERLAP_POLICIES, { hint: 'while the previous run is still in flight: call anyway, skip, or let one wait' })}
${select(v, 'misfirePolicy', 'Misfire', MISFIRE_POLICIES, { hint: 'runs found late (after an outage): fire one, fire all, or skip them' })}
${input(v, 'misfireThresholdMs', 'Misfire after (ms)', { type: 'number', hint: 'how late a run may start before it counts as misfired' })}
${input(v, 'autoPause', 'Auto-pause after', { type: 'number', hint: 'disable the timer after this many failed runs in a row; empty: never', attrs: 'min="1"' })}
${input(v, 'notifyUrl', 'Notify URL', { type: 'url', hint: "where failed or missed runs are reported; empty: the app's" })}
<label>Notify on</label><div>${NOTIFY_OUTCOMES.map(
    (o) =>
      html`<label class="choice"><input type="checkbox" name="notifyOn" value="${o}" ${v.values.notifyOn.includes(o) ? 'checked' : ''}> ${o}</label>`,
  )}${problems(v, 'notifyOn')}</div>
<h2 class="wide">About it</h2>
${textarea(v, 'labels', 'Labels', 'one key: value a line, at most 20; find timers by them (label=key:value)')}
${textarea(v, 'description', 'Description', 'for people; at most 1 KiB')}
${editing ? '' : html`<label for="f-active">Enable</label><div><label><input type="checkbox" id="f-active" name="active" ${v.values.active ? 'checked' : ''}> start firing at once</label>${problems(v, 'status')}</div>`}
<div class="wide actions"><button type="submit" class="go" data-action="save">${editing ? 'Save' : 'Create'}</button>
<a class="button" href="${editing ? `${v.paths.timers}/${v.timer!.id}` : v.paths.timers}">Cancel</a></div>
</form>`;
  return layout({ title, here: 'timers', ctx: v, body, script: 'timer-form.js' });
}
