import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { fromZodError, statusOf } from '../../http/errors.js';
import { CreateTimerSchema, UpdateTimerSchema } from '../../http/schemas/timer-schemas.js';
import { isCredentialName, MASK } from '../../src/domain/audit.js';
import {
  HTTP_METHODS,
  NOTIFY_OUTCOMES,
  OVERLAP_POLICIES,
  type Timer,
  type TimerPatch,
} from '../../src/domain/timer.js';
import { XtimerError } from '../../src/errors.js';
import { csrfField, layout, type Markup, type PageContext, zoned } from './layout.js';

/**
 * The create and edit form: a timer as form fields, the fields back as the body the REST
 * API takes (validated by the same schemas), and the API's errors placed next to the
 * field they are about. Credentials in header values are shown masked and kept unless
 * replaced.
 */

const FIELDS = [
  'app',
  'name',
  'cron',
  'timezone',
  'callbackUrl',
  'callbackMethod',
  'callbackHeaders',
  'callbackBody',
  'callbackTimeoutMs',
  'retryMaxAttempts',
  'retryBackoffMs',
  'overlapPolicy',
  'notifyUrl',
  'labels',
  'description',
] as const;
type Field = (typeof FIELDS)[number] | 'notifyOn' | 'status';

export type FormValues = Record<(typeof FIELDS)[number], string> & { notifyOn: string[]; active: boolean };
export type FormErrors = Partial<Record<Field | 'general', string[]>>;

/** The API field (as an error's path names it) each form field edits; the longest match wins. */
const FIELD_OF_PATH: Record<string, Field> = {
  app: 'app',
  name: 'name',
  cron: 'cron',
  at: 'cron',
  timezone: 'timezone',
  callback: 'callbackUrl',
  'callback.url': 'callbackUrl',
  'callback.method': 'callbackMethod',
  'callback.headers': 'callbackHeaders',
  'callback.body': 'callbackBody',
  'callback.timeoutMs': 'callbackTimeoutMs',
  retry: 'retryMaxAttempts',
  'retry.maxAttempts': 'retryMaxAttempts',
  'retry.backoffMs': 'retryBackoffMs',
  overlapPolicy: 'overlapPolicy',
  notify: 'notifyUrl',
  'notify.url': 'notifyUrl',
  'notify.on': 'notifyOn',
  labels: 'labels',
  description: 'description',
  status: 'status',
};

function fieldOf(path: string): Field | undefined {
  const parts = path.split('.');
  for (let n = parts.length; n > 0; n--) {
    const field = FIELD_OF_PATH[parts.slice(0, n).join('.')];
    if (field) return field;
  }
  return undefined;
}

function addError(errors: FormErrors, field: Field | 'general', message: string): void {
  errors[field] = [...(errors[field] ?? []), message];
}

/** Thrown while reading the form: what a field holds cannot be an API value at all. */
class FormProblems extends Error {
  constructor(readonly errors: FormErrors) {
    super('the form has problems');
  }
}

// ---------------------------------------------------------------- values

const lines = (pairs: Record<string, string>) =>
  Object.entries(pairs)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

export function blankValues(): FormValues {
  return {
    app: '',
    name: '',
    cron: '',
    timezone: 'UTC',
    callbackUrl: '',
    callbackMethod: 'POST',
    callbackHeaders: '',
    callbackBody: '',
    callbackTimeoutMs: '',
    retryMaxAttempts: '3',
    retryBackoffMs: '1000',
    overlapPolicy: 'allow',
    notifyUrl: '',
    notifyOn: ['failed', 'missed'],
    labels: '',
    description: '',
    active: false,
  };
}

/** A timer as the edit form shows it; credential header values masked. */
export function valuesOf(t: Timer): FormValues {
  const headers = Object.fromEntries(
    Object.entries(t.callback.headers).map(([k, v]) => [k, isCredentialName(k) ? MASK : v]),
  );
  return {
    app: t.app,
    name: t.name,
    cron: t.cron ?? '',
    timezone: t.timezone,
    callbackUrl: t.callback.url,
    callbackMethod: t.callback.method,
    callbackHeaders: lines(headers),
    callbackBody: t.callback.body ?? '',
    callbackTimeoutMs: String(t.callback.timeoutMs),
    retryMaxAttempts: String(t.retry.maxAttempts),
    retryBackoffMs: String(t.retry.backoffMs),
    overlapPolicy: t.overlapPolicy,
    notifyUrl: t.notify?.url ?? '',
    notifyOn: t.notify ? [...t.notify.on] : ['failed', 'missed'],
    labels: lines(t.labels),
    description: t.description ?? '',
    active: t.status === 'active',
  };
}

/** The posted form as values (missing fields empty; textareas with plain line breaks). */
export function valuesFrom(form: Record<string, string | File | (string | File)[]>): FormValues {
  const one = (name: string): string => {
    const v = form[name];
    const s = Array.isArray(v) ? v[0] : v;
    return typeof s === 'string' ? s.replace(/\r\n?/g, '\n') : '';
  };
  const all = (name: string): string[] => {
    const v = form[name];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter(
      (s): s is string => typeof s === 'string',
    );
  };
  const values = blankValues();
  for (const f of FIELDS) values[f] = one(f);
  values.notifyOn = all('notifyOn');
  values.active = one('active') === 'on';
  return values;
}

// ---------------------------------------------------------------- values → API bodies

/** `Name: value` lines as a map; `keep` gives back the stored value of a masked credential. */
function pairs(
  text: string,
  field: Field,
  errors: FormErrors,
  keep?: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      addError(errors, field, `"${line.slice(0, 60)}" is not name: value`);
      continue;
    }
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    out[name] = value === MASK && keep?.[name] !== undefined && isCredentialName(name) ? keep[name] : value;
  }
  return out;
}

function whole(text: string, field: Field, errors: FormErrors): number | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  if (!/^-?\d{1,15}$/.test(s)) {
    addError(errors, field, 'must be a whole number');
    return undefined;
  }
  return Number(s);
}

/** The body POST /api/v1/timers takes, as the form fills it. */
export function createBody(v: FormValues): Record<string, unknown> {
  const errors: FormErrors = {};
  const retry = {
    maxAttempts: whole(v.retryMaxAttempts, 'retryMaxAttempts', errors),
    backoffMs: whole(v.retryBackoffMs, 'retryBackoffMs', errors),
  };
  const body = {
    app: v.app.trim(),
    name: v.name,
    ...(v.cron.trim() === '' ? {} : { cron: v.cron.trim() }),
    timezone: v.timezone.trim() || 'UTC',
    callback: {
      url: v.callbackUrl.trim(),
      method: v.callbackMethod,
      headers: pairs(v.callbackHeaders, 'callbackHeaders', errors),
      ...(v.callbackBody === '' ? {} : { body: v.callbackBody }),
      ...defined({ timeoutMs: whole(v.callbackTimeoutMs, 'callbackTimeoutMs', errors) }),
    },
    retry: defined(retry),
    overlapPolicy: v.overlapPolicy,
    ...(v.notifyUrl.trim() === '' ? {} : { notify: { url: v.notifyUrl.trim(), on: v.notifyOn } }),
    labels: pairs(v.labels, 'labels', errors),
    ...(v.description === '' ? {} : { description: v.description }),
    status: v.active ? 'active' : 'inactive',
  };
  if (v.cron.trim() === '')
    addError(errors, 'cron', 'give a cron expression (one-shot timers are made with the API)');
  if (Object.keys(errors).length > 0) throw new FormProblems(errors);
  return body;
}

const same = (a: unknown, b: unknown) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
function sorted(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The PATCH body for what the form changed, and nothing else: an unchanged cron or zone
 * must not re-plan the timer's runs. An empty cron leaves a one-shot timer one-shot.
 */
export function patchBody(v: FormValues, t: Timer): Record<string, unknown> {
  const errors: FormErrors = {};
  const cb = t.callback;
  const headers = pairs(v.callbackHeaders, 'callbackHeaders', errors, cb.headers);
  const callback = defined({
    url: v.callbackUrl.trim() === cb.url ? undefined : v.callbackUrl.trim(),
    method: v.callbackMethod === cb.method ? undefined : v.callbackMethod,
    headers: same(headers, cb.headers) ? undefined : headers,
    body: v.callbackBody === (cb.body ?? '') ? undefined : v.callbackBody === '' ? null : v.callbackBody,
    timeoutMs: changed(whole(v.callbackTimeoutMs, 'callbackTimeoutMs', errors), cb.timeoutMs),
  });
  const retry = defined({
    maxAttempts: changed(whole(v.retryMaxAttempts, 'retryMaxAttempts', errors), t.retry.maxAttempts),
    backoffMs: changed(whole(v.retryBackoffMs, 'retryBackoffMs', errors), t.retry.backoffMs),
  });
  const notify = v.notifyUrl.trim() === '' ? null : { url: v.notifyUrl.trim(), on: v.notifyOn };
  const labels = pairs(v.labels, 'labels', errors);
  const description = v.description === '' ? null : v.description;
  if (Object.keys(errors).length > 0) throw new FormProblems(errors);
  const cron = v.cron.trim();
  return {
    ...(v.name === t.name ? {} : { name: v.name }),
    ...(cron === '' || cron === t.cron ? {} : { cron }),
    ...(v.timezone.trim() === t.timezone ? {} : { timezone: v.timezone.trim() }),
    ...(Object.keys(callback).length === 0 ? {} : { callback }),
    ...(Object.keys(retry).length === 0 ? {} : { retry }),
    ...(v.overlapPolicy === t.overlapPolicy ? {} : { overlapPolicy: v.overlapPolicy }),
    ...(same(notify, t.notify) ? {} : { notify }),
    ...(same(labels, t.labels) ? {} : { labels }),
    ...(description === t.description ? {} : { description }),
  };
}

const changed = (n: number | undefined, current: number) =>
  n === undefined || n === current ? undefined : n;

/** Validates a create body with the API's own schema. */
export function parseCreate(body: Record<string, unknown>) {
  const parsed = CreateTimerSchema.safeParse(body);
  if (!parsed.success) throw fromZodError(parsed.error, 'body');
  return parsed.data;
}

/** Validates a PATCH body with the API's own schema. */
export function parsePatch(body: Record<string, unknown>): TimerPatch {
  const parsed = UpdateTimerSchema.safeParse(body);
  if (!parsed.success) throw fromZodError(parsed.error, 'body');
  return parsed.data;
}

/**
 * An error of reading the form, of the schema or of the service, placed at its field
 * (by the paths of its details, or by the field its message begins with, or by its
 * code), with the status the API answers it with. Anything that is not the input's
 * fault is thrown on.
 */
export function formProblem(err: unknown): { errors: FormErrors; status: ContentfulStatusCode } {
  if (err instanceof FormProblems) return { errors: err.errors, status: 400 };
  if (!(err instanceof XtimerError)) throw err;
  const status = statusOf(err.code);
  if (status >= 500 || status === 401 || status === 403 || status === 429) throw err;
  return { errors: placed(err), status };
}

function placed(err: XtimerError): FormErrors {
  const errors: FormErrors = {};
  const details = Array.isArray(err.details)
    ? (err.details as Array<{ path?: unknown; message?: unknown }>)
    : [];
  for (const d of details) {
    const field = typeof d.path === 'string' ? fieldOf(d.path) : undefined;
    if (field && typeof d.message === 'string') addError(errors, field, d.message);
  }
  if (Object.keys(errors).length > 0) return errors;
  const prefix = /^([A-Za-z.]+): (.*)$/s.exec(err.message);
  const byPrefix = prefix ? fieldOf(prefix[1]!) : undefined;
  if (byPrefix) {
    addError(errors, byPrefix, prefix![2]!);
    return errors;
  }
  const byCode: Partial<Record<string, Field>> = {
    TIMER_NAME_TAKEN: 'name',
    INVALID_CRON: 'cron',
    CRON_TOO_FREQUENT: 'cron',
    CRON_TOO_COSTLY: 'cron',
    TARGET_BLOCKED: 'callbackUrl',
  };
  addError(errors, byCode[err.code] ?? 'general', err.message);
  return errors;
}

// ---------------------------------------------------------------- the page

const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

export interface TimerFormView extends PageContext {
  mode: 'create' | 'edit';
  /** The timer edited. */
  timer?: Timer | undefined;
  values: FormValues;
  errors: FormErrors;
  /** The live preview's first fire times (the stored schedule's, when editing). */
  preview: { runs: number[]; timezone: string };
}

function problems(v: TimerFormView, field: Field): Markup {
  return html`${(v.errors[field] ?? []).map((m) => html`<span class="field-error" data-error-for="${field}">${m}</span>`)}`;
}

function input(
  v: TimerFormView,
  field: (typeof FIELDS)[number],
  label: string,
  opts: { type?: string; hint?: string; attrs?: string } = {},
): Markup {
  return html`<label for="f-${field}">${label}</label><div><input type="${opts.type ?? 'text'}" id="f-${field}" name="${field}" value="${v.values[field]}" ${opts.attrs ?? ''}>${opts.hint ? html`<span class="hint">${opts.hint}</span>` : ''}${problems(v, field)}</div>`;
}

function select(
  v: TimerFormView,
  field: (typeof FIELDS)[number],
  label: string,
  options: readonly string[],
): Markup {
  return html`<label for="f-${field}">${label}</label><div><select id="f-${field}" name="${field}">${options.map(
    (o) => html`<option value="${o}" ${v.values[field] === o ? 'selected' : ''}>${o}</option>`,
  )}</select>${problems(v, field)}</div>`;
}

function textarea(v: TimerFormView, field: (typeof FIELDS)[number], label: string, hint: string): Markup {
  return html`<label for="f-${field}">${label}</label><div><textarea id="f-${field}" name="${field}" rows="3">${v.values[field]}</textarea><span class="hint">${hint}</span>${problems(v, field)}</div>`;
}

export function timerFormPage(v: TimerFormView): Markup {
  const editing = v.mode === 'edit' && v.timer !== undefined;
  const action = editing ? `${v.paths.timers}/${v.timer!.id}/edit` : `${v.paths.timers}/new`;
  const title = editing ? `Edit ${v.timer!.name}` : 'New timer';
  const general = v.errors.general ?? [];
  const body = html`<p class="muted"><a href="${v.paths.timers}">Timers</a>${editing ? html` / <a href="${v.paths.timers}/${v.timer!.id}">${v.timer!.name}</a>` : ''}</p>
<h1>${title}</h1>
${general.map((m) => html`<p class="error" data-error-for="general">${m}</p>`)}
${Object.keys(v.errors).length > 0 ? html`<p class="error" role="alert">Nothing was saved: correct the fields marked below.</p>` : ''}
<form class="edit" id="timer-form" method="post" action="${action}">
${csrfField(v)}
${editing ? html`<label>App</label><div class="mono" style="padding-top: 5px">${v.timer!.app}</div>` : input(v, 'app', 'App', { attrs: 'required' })}
${input(v, 'name', 'Name', { attrs: 'required' })}
${input(v, 'cron', 'Cron', {
  hint:
    editing && v.timer!.cron === null
      ? 'A one-shot timer: a cron makes it fire by the cron instead. 5 fields, or 6 with seconds first.'
      : '5 fields (minute hour day month weekday), or 6 with seconds first: 0 30 2 * * *',
  attrs: 'autocomplete="off" spellcheck="false"',
})}
<label>Next 5 fires</label><div><ul class="preview mono" id="preview" data-src="${v.paths.timers}/preview">${v.preview.runs.map(
    (ms) => html`<li>${zoned(ms, v.preview.timezone)}</li>`,
  )}</ul><span class="hint">of the cron as typed, from the preview API; nothing is saved until you save</span></div>
${input(v, 'timezone', 'Time zone', { hint: 'an IANA zone: Europe/Berlin, Asia/Shanghai, UTC', attrs: 'list="zones" autocomplete="off"' })}
<datalist id="zones">${TIME_ZONES.map((z) => html`<option value="${z}"></option>`)}</datalist>
${input(v, 'callbackUrl', 'Callback URL', { type: 'url', attrs: 'required' })}
${select(v, 'callbackMethod', 'Method', HTTP_METHODS)}
${textarea(v, 'callbackHeaders', 'Headers', `one Name: value a line; ${MASK} keeps a stored credential`)}
${textarea(v, 'callbackBody', 'Body', 'sent as written')}
${input(v, 'callbackTimeoutMs', 'Timeout (ms)', { type: 'number', hint: 'empty: CALLBACK_TIMEOUT_MS' })}
${input(v, 'retryMaxAttempts', 'Attempts', { type: 'number', hint: 'in all; 1 = no retry' })}
${input(v, 'retryBackoffMs', 'Backoff (ms)', { type: 'number', hint: 'before the second attempt, then doubling, with jitter' })}
${select(v, 'overlapPolicy', 'Overlap', OVERLAP_POLICIES)}
${input(v, 'notifyUrl', 'Notify URL', { type: 'url', hint: "where failed or missed runs are reported; empty: the app's" })}
<label>Notify on</label><div>${NOTIFY_OUTCOMES.map(
    (o) =>
      html`<label style="margin-right: 12px"><input type="checkbox" name="notifyOn" value="${o}" ${v.values.notifyOn.includes(o) ? 'checked' : ''}> ${o}</label>`,
  )}${problems(v, 'notifyOn')}</div>
${textarea(v, 'labels', 'Labels', 'one key: value a line, at most 20; find timers by them (label=key:value)')}
${textarea(v, 'description', 'Description', 'for people; at most 1 KiB')}
${editing ? '' : html`<label for="f-active">Enable</label><div><label><input type="checkbox" id="f-active" name="active" ${v.values.active ? 'checked' : ''}> start firing at once</label>${problems(v, 'status')}</div>`}
<div class="wide actions"><button type="submit" class="go" data-action="save">${editing ? 'Save' : 'Create'}</button>
<a class="button" href="${editing ? `${v.paths.timers}/${v.timer!.id}` : v.paths.timers}">Cancel</a></div>
</form>`;
  return layout({ title, here: 'timers', ctx: v, body, script: 'timer-form.js' });
}
