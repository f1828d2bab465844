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

/** Names that say a value is a credential: its value is never written to the audit log. */
const CREDENTIAL_NAME =
  /auth|token|secret|passw|pwd|api[-_]?key|access[-_]?key|private|cookie|session|signature|credential/i;

export const MASK = '***';

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/** Headers with the values of credential-like names (Authorization, X-Api-Key, Cookie, …) masked. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, isCredentialName(name) ? MASK : value]),
  );
}

/** A URL with the values of credential-like query parameters (`?token=…`) masked. */
export function maskUrl(url: string): string {
  // No query, nothing to mask: most callbacks, and parsing a URL costs microseconds on every create.
  if (!url.includes('?')) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  let masked = false;
  for (const name of [...u.searchParams.keys()]) {
    if (isCredentialName(name)) {
      u.searchParams.set(name, MASK);
      masked = true;
    }
  }
  return masked ? u.toString() : url;
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

/** Fields with credentials masked: header values and URL query parameters named like credentials. */
export function maskFields(fields: AuditFields): AuditFields {
  const masked = { ...fields };
  const { 'callback.headers': headers, 'callback.url': url, notify } = fields;
  if ('callback.headers' in fields)
    masked['callback.headers'] = maskHeaders(headers as Record<string, string>);
  if (typeof url === 'string') masked['callback.url'] = maskUrl(url);
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
