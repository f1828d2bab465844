import { createHash } from 'node:crypto';
import type { Timer, TimerDraft } from './timer.js';

/** What an audit entry records: a change to a timer or its runs, to an app's credentials or calendars, or a pause of every app. */
export const AUDIT_ACTIONS = [
  'create',
  'update',
  'enable',
  'disable',
  'delete',
  'trigger',
  'retry',
  'app_create',
  'app_update',
  'key_rotate',
  'secret_rotate',
  'calendar_put',
  'calendar_delete',
  'backfill',
  'backfill_cancel',
  'pause_all',
  'resume_all',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Field name → value, as an entry shows a timer's fields (or an app's) before and after a change. */
export type AuditFields = Record<string, unknown>;

export interface AuditEntry {
  id: number;
  at: number;
  /** `admin`, `open` (no admin token configured), or the id of the app key that made the change. */
  actor: string;
  action: AuditAction;
  app: string;
  timerId: number | null;
  /** Ties together the entries of one batch of changes (an apply); null for a single change. */
  batchId: string | null;
  before: AuditFields | null;
  after: AuditFields | null;
}

export type AuditDraft = Omit<AuditEntry, 'id' | 'at'>;

/** Who made a change, as the services pass it down to the audit log. */
export interface ChangeAuthor {
  actor: string;
  batchId?: string | null | undefined;
}

/**
 * Names that say a header is a credential. The audit log masks every header value but a
 * few (KEPT_HEADERS); the dashboard's form uses these names to keep a credential out of
 * the page.
 */
const CREDENTIAL_NAME =
  /auth|token|secret|passw|pwd|api[-_]?key|access[-_]?key|private|cookie|session|signature|credential/i;

export const MASK = '***';

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/**
 * The header values the audit log keeps: they say how a body is sent and read, never who
 * may call. Any other value may be a credential under a name no list foresees
 * (`Ocp-Apim-Subscription-Key`, `X-Functions-Key`), so it is masked.
 */
const KEPT_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-encoding',
  'content-language',
  'content-type',
  'user-agent',
]);

/** Headers as the audit log keeps them: every name, the values of KEPT_HEADERS only. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      KEPT_HEADERS.has(name.toLowerCase()) ? value : MASK,
    ]),
  );
}

/** A URL path longer than this is masked whole: long paths carry tokens (Slack, Discord, Telegram hooks). */
export const KEPT_PATH_MAX_CHARS = 64;

/**
 * A path segment or query name that may be a secret: 32 characters or more, or 16 or more
 * mixing at least two of lower case, upper case and digits (a token, a hash, a key).
 */
function looksRandom(text: string): boolean {
  if (text.length >= 32) return true;
  if (text.length < 16) return false;
  return [/[a-z]/, /[A-Z]/, /[0-9]/].filter((kind) => kind.test(text)).length >= 2;
}

/**
 * A URL as the audit log keeps it: scheme, host and port; the path only if it is at most
 * KEPT_PATH_MAX_CHARS long and no segment looks random (else `/***`); each query
 * parameter's name (unless it looks random) with its value masked; a fragment masked.
 */
export function maskUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return MASK;
  }
  const keepPath = u.pathname.length <= KEPT_PATH_MAX_CHARS && !u.pathname.split('/').some(looksRandom);
  const names = [...new Set(u.searchParams.keys())].map((name) =>
    looksRandom(name) ? MASK : encodeURIComponent(name),
  );
  const query = names.length === 0 ? '' : `?${names.map((name) => `${name}=${MASK}`).join('&')}`;
  return `${u.protocol}//${u.host}${keepPath ? u.pathname : `/${MASK}`}${query}${u.hash ? `#${MASK}` : ''}`;
}

/** A callback body as the audit log keeps it: its size and a digest, so a change shows, never its text. */
export function maskBody(body: string | null): { bytes: number; sha256: string } | null {
  if (body === null) return null;
  return { bytes: Buffer.byteLength(body, 'utf8'), sha256: createHash('sha256').update(body).digest('hex') };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * A timer's user-set fields as the audit log shows them, flat (`callback.url`), so an
 * update records exactly the fields it changed. Unmasked: mask with `maskFields`. A
 * stored timer's pause (note, until) is among them; a definition (a draft) has none.
 */
export function timerFields(t: TimerDraft | Timer): AuditFields {
  const fields: AuditFields = {
    name: t.name,
    cron: t.cron,
    at: iso(t.at),
    everyMs: t.everyMs,
    offsetMs: t.everyMs === null ? null : t.offsetMs,
    jitterMs: t.jitterMs,
    timezone: t.timezone,
    'callback.url': t.callback.url,
    'callback.method': t.callback.method,
    'callback.headers': t.callback.headers,
    'callback.body': t.callback.body,
    'callback.timeoutMs': t.callback.timeoutMs,
    'retry.maxAttempts': t.retry.maxAttempts,
    'retry.backoffMs': t.retry.backoffMs,
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: t.misfireThresholdMs,
    startAt: iso(t.startAt),
    endAt: iso(t.endAt),
    maxRuns: t.maxRuns,
    overlapPolicy: t.overlapPolicy,
    notify: t.notify,
    labels: t.labels,
    description: t.description,
    autoPause: t.autoPause,
    skipCalendars: t.skipCalendars,
    status: t.status,
  };
  if ('pausedNote' in t) {
    fields.pausedNote = t.pausedNote;
    fields.pausedUntil = iso(t.pausedUntil);
  }
  return fields;
}

/** Fields as the audit log keeps them: header values, URLs and the body masked (maskHeaders, maskUrl, maskBody). */
export function maskFields(fields: AuditFields): AuditFields {
  const masked = { ...fields };
  const { 'callback.headers': headers, 'callback.url': url, 'callback.body': body, notify } = fields;
  if ('callback.headers' in fields)
    masked['callback.headers'] = maskHeaders(headers as Record<string, string>);
  if (typeof url === 'string') masked['callback.url'] = maskUrl(url);
  if ('callback.body' in fields) masked['callback.body'] = maskBody(body as string | null);
  if (notify !== null && typeof notify === 'object') {
    masked.notify = { ...notify, url: maskUrl((notify as { url: string }).url) };
  }
  return masked;
}

/**
 * The fields that differ between two states, each side masked. Compared before masking,
 * so a changed secret header shows as changed (`***` → `***`) without showing either value.
 */
export function changedFields(
  before: AuditFields,
  after: AuditFields,
): { before: AuditFields; after: AuditFields } {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]),
  );
  const pick = (fields: AuditFields) =>
    maskFields(Object.fromEntries(names.map((name) => [name, fields[name] ?? null])));
  return { before: pick(before), after: pick(after) };
}

/** `author`'s entry for a change to `app`, and to its timer `timerId` if there is one. */
export function auditEntry(
  author: ChangeAuthor,
  action: AuditAction,
  where: { app: string; timerId: number | null },
  before: AuditFields | null,
  after: AuditFields | null,
): AuditDraft {
  return { actor: author.actor, batchId: author.batchId ?? null, action, ...where, before, after };
}

/** The entry for a change of `timer` from `before` to `after` (null: created or deleted). */
export function timerChange(
  author: ChangeAuthor,
  action: AuditAction,
  timer: Pick<Timer, 'id' | 'app'>,
  before: Timer | null,
  after: Timer | null,
): AuditDraft {
  const where = { app: timer.app, timerId: timer.id };
  if (before !== null && after !== null) {
    const changed = changedFields(timerFields(before), timerFields(after));
    return auditEntry(author, action, where, changed.before, changed.after);
  }
  const whole = (t: Timer | null) => (t === null ? null : maskFields(timerFields(t)));
  return auditEntry(author, action, where, whole(before), whole(after));
}
