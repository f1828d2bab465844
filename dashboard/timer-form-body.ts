import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { fromZodError, statusOf } from '../http/errors.js';
import { SCHEDULE_KINDS } from '../http/schemas/schedule-schemas.js';
import { CreateTimerSchema, UpdateTimerSchema } from '../http/schemas/timer-schemas.js';
import { patchFrom } from '../http/timer-draft.js';
import { isCredentialName, MASK } from '../src/domain/audit.js';
import { formatDuration, parseDuration } from '../src/domain/duration.js';
import { isValidTimeZone } from '../src/domain/schedule/time-zone.js';
import type { Timer, TimerPatch } from '../src/domain/timer.js';
import { XtimerError } from '../src/errors.js';
import { parseInstant, wallText } from './wall-time.js';

/**
 * The create and edit form's values: a timer as form fields, the fields back as the body
 * the REST API takes (validated by the same schemas), and the API's errors placed next to
 * the field they are about. Times are wall times in the form's zone; credentials in header
 * values are shown masked and kept unless replaced.
 */

export const TEXT_FIELDS = [
  'app',
  'name',
  'kind',
  'cron',
  'every',
  'offset',
  'at',
  'timezone',
  'jitterMs',
  'startAt',
  'endAt',
  'maxRuns',
  'callbackUrl',
  'callbackMethod',
  'callbackHeaders',
  'callbackBody',
  'callbackTimeoutMs',
  'retryMaxAttempts',
  'retryBackoffMs',
  'overlapPolicy',
  'misfirePolicy',
  'misfireThresholdMs',
  'autoPause',
  'notifyUrl',
  'labels',
  'description',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];
export type Field = TextField | 'notifyOn' | 'skipCalendars' | 'status';

/** Which of the three a timer fires by: its cron, its interval, or once, at a time. */
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

export type FormValues = Record<TextField, string> & {
  notifyOn: string[];
  skipCalendars: string[];
  active: boolean;
};
export type FormErrors = Partial<Record<Field | 'general', string[]>>;

/** The API field (as an error's path names it) each form field edits; the longest match wins. */
const FIELD_OF_PATH: Record<string, Field> = {
  app: 'app',
  name: 'name',
  cron: 'cron',
  every: 'every',
  offset: 'offset',
  at: 'at',
  timezone: 'timezone',
  jitterMs: 'jitterMs',
  startAt: 'startAt',
  endAt: 'endAt',
  maxRuns: 'maxRuns',
  skipCalendars: 'skipCalendars',
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
  misfirePolicy: 'misfirePolicy',
  misfireThresholdMs: 'misfireThresholdMs',
  autoPause: 'autoPause',
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

export function kindOf(t: Pick<Timer, 'at' | 'everyMs'>): ScheduleKind {
  if (t.at !== null) return 'at';
  return t.everyMs !== null ? 'every' : 'cron';
}

export function blankValues(): FormValues {
  return {
    app: '',
    name: '',
    kind: 'cron',
    cron: '',
    every: '',
    offset: '',
    at: '',
    timezone: 'UTC',
    jitterMs: '0',
    startAt: '',
    endAt: '',
    maxRuns: '',
    callbackUrl: '',
    callbackMethod: 'POST',
    callbackHeaders: '',
    callbackBody: '',
    callbackTimeoutMs: '',
    retryMaxAttempts: '3',
    retryBackoffMs: '1000',
    overlapPolicy: 'allow',
    misfirePolicy: 'fire_once',
    misfireThresholdMs: '60000',
    autoPause: '',
    notifyUrl: '',
    notifyOn: ['failed', 'missed'],
    skipCalendars: [],
    labels: '',
    description: '',
    active: false,
  };
}

const wallOrEmpty = (ms: number | null, zone: string) => (ms === null ? '' : wallText(ms, zone));

/** A timer as the edit form shows it: times as wall times in its zone, credential header values masked. */
export function valuesOf(t: Timer): FormValues {
  const headers = Object.fromEntries(
    Object.entries(t.callback.headers).map(([k, v]) => [k, isCredentialName(k) ? MASK : v]),
  );
  return {
    app: t.app,
    name: t.name,
    kind: kindOf(t),
    cron: t.cron ?? '',
    every: t.everyMs === null ? '' : formatDuration(t.everyMs),
    offset: t.everyMs === null || t.offsetMs === 0 ? '' : formatDuration(t.offsetMs),
    at: wallOrEmpty(t.at, t.timezone),
    timezone: t.timezone,
    jitterMs: String(t.jitterMs),
    startAt: wallOrEmpty(t.startAt, t.timezone),
    endAt: wallOrEmpty(t.endAt, t.timezone),
    maxRuns: t.maxRuns === null ? '' : String(t.maxRuns),
    callbackUrl: t.callback.url,
    callbackMethod: t.callback.method,
    callbackHeaders: lines(headers),
    callbackBody: t.callback.body ?? '',
    callbackTimeoutMs: String(t.callback.timeoutMs),
    retryMaxAttempts: String(t.retry.maxAttempts),
    retryBackoffMs: String(t.retry.backoffMs),
    overlapPolicy: t.overlapPolicy,
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: String(t.misfireThresholdMs),
    autoPause: t.autoPause === null ? '' : String(t.autoPause.afterConsecutiveFailures),
    notifyUrl: t.notify?.url ?? '',
    notifyOn: t.notify ? [...t.notify.on] : ['failed', 'missed'],
    skipCalendars: [...t.skipCalendars],
    labels: lines(t.labels),
    description: t.description ?? '',
    active: t.status === 'active',
  };
}

/**
 * The posted form as values, textareas with plain line breaks. A text field the post
 * lacks keeps its value in `base` (the stored timer's when editing); a checkbox it lacks
 * is unticked, as browsers send none.
 */
export function valuesFrom(
  form: Record<string, string | File | (string | File)[]>,
  base: FormValues = blankValues(),
): FormValues {
  const one = (name: string): string | undefined => {
    const v = form[name];
    const s = Array.isArray(v) ? v[0] : v;
    return typeof s === 'string' ? s.replace(/\r\n?/g, '\n') : undefined;
  };
  const all = (name: string): string[] => {
    const v = form[name];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter(
      (s): s is string => typeof s === 'string',
    );
  };
  const values: FormValues = { ...base, notifyOn: all('notifyOn'), skipCalendars: all('skipCalendars') };
  for (const f of TEXT_FIELDS) values[f] = one(f) ?? base[f];
  if (!(SCHEDULE_KINDS as readonly string[]).includes(values.kind)) values.kind = base.kind;
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
    if (name === '__proto__') {
      addError(errors, field, '"__proto__" cannot be a name');
      continue;
    }
    const kept = keep !== undefined && Object.hasOwn(keep, name) ? keep[name] : undefined;
    out[name] = value === MASK && kept !== undefined && isCredentialName(name) ? kept : value;
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

/** The zone the form's times are read in: its time zone, or UTC while that is not one (its own error says so). */
const zoneOf = (v: FormValues) => (isValidTimeZone(v.timezone.trim()) ? v.timezone.trim() : 'UTC');

/** A typed time as the API's ISO instant; undefined when empty or unreadable (then with its error). */
function instant(v: FormValues, field: 'at' | 'startAt' | 'endAt', errors: FormErrors): string | undefined {
  const text = v[field].trim();
  if (text === '') return undefined;
  try {
    return new Date(parseInstant(text, zoneOf(v))).toISOString();
  } catch (err) {
    if (!(err instanceof XtimerError)) throw err;
    addError(errors, field, err.message);
    return undefined;
  }
}

const MISSING: Record<ScheduleKind, string> = {
  cron: 'give a cron expression',
  every: 'give an interval, such as 90s, 15m or 1h30m',
  at: "give the time to fire at, in the timer's zone",
};

/** The chosen kind's schedule fields, as the API names them. */
function scheduleBody(v: FormValues, errors: FormErrors): Record<string, unknown> {
  const kind = v.kind as ScheduleKind;
  const text = v[kind].trim();
  if (text === '') addError(errors, kind, MISSING[kind]);
  if (kind === 'at') return defined({ at: instant(v, 'at', errors) });
  if (kind === 'cron') return { cron: text };
  return { every: text, ...(v.offset.trim() === '' ? {} : { offset: v.offset.trim() }) };
}

/** The body POST /api/v1/timers takes, as the form fills it. */
export function createBody(v: FormValues): Record<string, unknown> {
  const errors: FormErrors = {};
  const retry = {
    maxAttempts: whole(v.retryMaxAttempts, 'retryMaxAttempts', errors),
    backoffMs: whole(v.retryBackoffMs, 'retryBackoffMs', errors),
  };
  const autoPause = whole(v.autoPause, 'autoPause', errors);
  // A one-shot fires once: jitter, a window and calendars are for repeating schedules.
  const repeating =
    v.kind === 'at'
      ? {}
      : defined({
          jitterMs: whole(v.jitterMs, 'jitterMs', errors),
          startAt: instant(v, 'startAt', errors),
          endAt: instant(v, 'endAt', errors),
          maxRuns: whole(v.maxRuns, 'maxRuns', errors),
          skipCalendars: v.skipCalendars.length === 0 ? undefined : v.skipCalendars,
        });
  const body = {
    app: v.app.trim(),
    name: v.name,
    ...scheduleBody(v, errors),
    timezone: v.timezone.trim() || 'UTC',
    ...repeating,
    callback: {
      url: v.callbackUrl.trim(),
      method: v.callbackMethod,
      headers: pairs(v.callbackHeaders, 'callbackHeaders', errors),
      ...(v.callbackBody === '' ? {} : { body: v.callbackBody }),
      ...defined({ timeoutMs: whole(v.callbackTimeoutMs, 'callbackTimeoutMs', errors) }),
    },
    retry: defined(retry),
    overlapPolicy: v.overlapPolicy,
    misfirePolicy: v.misfirePolicy,
    ...defined({ misfireThresholdMs: whole(v.misfireThresholdMs, 'misfireThresholdMs', errors) }),
    ...(autoPause === undefined ? {} : { autoPause: { afterConsecutiveFailures: autoPause } }),
    ...(v.notifyUrl.trim() === '' ? {} : { notify: { url: v.notifyUrl.trim(), on: v.notifyOn } }),
    labels: pairs(v.labels, 'labels', errors),
    ...(v.description === '' ? {} : { description: v.description }),
    status: v.active ? 'active' : 'inactive',
  };
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

const changed = (n: number | undefined, current: number) =>
  n === undefined || n === current ? undefined : n;

/**
 * The schedule fields of a PATCH: the chosen kind's when it is new or its value changed.
 * A time typed back as it was shown is unchanged, even where the zone's clock is ambiguous.
 */
function schedulePatch(v: FormValues, t: Timer, shown: FormValues, errors: FormErrors) {
  const kind = v.kind as ScheduleKind;
  const sameKind = kind === kindOf(t);
  const text = v[kind].trim();
  if (text === '') {
    addError(errors, kind, MISSING[kind]);
    return {};
  }
  if (kind === 'cron') return sameKind && text === t.cron ? {} : { cron: text };
  if (kind === 'every') {
    const offset = v.offset.trim();
    return {
      ...(sameKind && sameDuration(text, t.everyMs) ? {} : { every: text }),
      ...(sameKind && sameDuration(offset || '0s', t.offsetMs) ? {} : { offset: offset || '0s' }),
    };
  }
  if (!sameKind) return defined({ at: instant(v, 'at', errors) });
  const at = timePatch(v, 'at', t.at, shown, errors);
  return at ? { at } : {};
}

/** `90m` and `1h30m` alike; text that is no duration is sent on, for the schema to say why. */
function sameDuration(text: string, ms: number | null): boolean {
  try {
    return parseDuration(text) === ms;
  } catch {
    return false;
  }
}

/** A window time's PATCH value: undefined when unchanged, null when emptied. */
function timePatch(
  v: FormValues,
  field: 'at' | 'startAt' | 'endAt',
  stored: number | null,
  shown: FormValues,
  errors: FormErrors,
): string | null | undefined {
  if (v[field].trim() === shown[field] && v.timezone.trim() === shown.timezone) return undefined;
  const iso = instant(v, field, errors);
  if (iso === undefined) return stored === null || v[field].trim() !== '' ? undefined : null;
  return Date.parse(iso) === stored ? undefined : iso;
}

/**
 * The PATCH body for what the form changed, and nothing else: an unchanged schedule or
 * zone must not re-plan the timer's runs.
 */
export function patchBody(v: FormValues, t: Timer): Record<string, unknown> {
  const errors: FormErrors = {};
  const shown = valuesOf(t);
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
  const schedule = schedulePatch(v, t, shown, errors);
  const repeating =
    v.kind === 'at'
      ? {}
      : defined({
          jitterMs: changed(whole(v.jitterMs, 'jitterMs', errors) ?? 0, t.jitterMs),
          startAt: timePatch(v, 'startAt', t.startAt, shown, errors),
          endAt: timePatch(v, 'endAt', t.endAt, shown, errors),
          maxRuns: nullable(whole(v.maxRuns, 'maxRuns', errors), t.maxRuns),
          skipCalendars: same([...v.skipCalendars].sort(), [...t.skipCalendars].sort())
            ? undefined
            : v.skipCalendars,
        });
  const pauseAfter = whole(v.autoPause, 'autoPause', errors);
  const autoPause = pauseAfter === undefined ? null : { afterConsecutiveFailures: pauseAfter };
  const notify = v.notifyUrl.trim() === '' ? null : { url: v.notifyUrl.trim(), on: v.notifyOn };
  const labels = pairs(v.labels, 'labels', errors);
  const description = v.description === '' ? null : v.description;
  const threshold = whole(v.misfireThresholdMs, 'misfireThresholdMs', errors);
  if (Object.keys(errors).length > 0) throw new FormProblems(errors);
  return {
    ...(v.name === t.name ? {} : { name: v.name }),
    ...schedule,
    ...(v.timezone.trim() === t.timezone ? {} : { timezone: v.timezone.trim() }),
    ...repeating,
    ...(Object.keys(callback).length === 0 ? {} : { callback }),
    ...(Object.keys(retry).length === 0 ? {} : { retry }),
    ...(v.overlapPolicy === t.overlapPolicy ? {} : { overlapPolicy: v.overlapPolicy }),
    ...(v.misfirePolicy === t.misfirePolicy ? {} : { misfirePolicy: v.misfirePolicy }),
    ...defined({ misfireThresholdMs: changed(threshold, t.misfireThresholdMs) }),
    ...(same(autoPause, t.autoPause) ? {} : { autoPause }),
    ...(same(notify, t.notify) ? {} : { notify }),
    ...(same(labels, t.labels) ? {} : { labels }),
    ...(description === t.description ? {} : { description }),
  };
}

/** A number that may be cleared: undefined when unchanged, null when emptied. */
const nullable = (n: number | undefined, current: number | null) =>
  (n ?? null) === current ? undefined : (n ?? null);

/** Validates a create body with the API's own schema. */
export function parseCreate(body: Record<string, unknown>) {
  const parsed = CreateTimerSchema.safeParse(body);
  if (!parsed.success) throw fromZodError(parsed.error, 'body');
  return parsed.data;
}

/** Validates a PATCH body with the API's own schema, into the patch the API's route makes of it. */
export function parsePatch(body: Record<string, unknown>): TimerPatch {
  const parsed = UpdateTimerSchema.safeParse(body);
  if (!parsed.success) throw fromZodError(parsed.error, 'body');
  return patchFrom(parsed.data);
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

const FIELD_OF_CODE: Partial<Record<string, Field>> = {
  TIMER_NAME_TAKEN: 'name',
  INVALID_CRON: 'cron',
  CRON_TOO_FREQUENT: 'cron',
  CRON_TOO_COSTLY: 'cron',
  INVALID_TIMEZONE: 'timezone',
  CALENDAR_NOT_FOUND: 'skipCalendars',
  TARGET_BLOCKED: 'callbackUrl',
};

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
  addError(errors, FIELD_OF_CODE[err.code] ?? 'general', err.message);
  return errors;
}
