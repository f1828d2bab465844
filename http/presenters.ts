import type { AuditEntry } from '../src/domain/audit.js';
import { backfillState } from '../src/domain/backfill.js';
import { formatDuration } from '../src/domain/duration.js';
import { taskKey } from '../src/domain/plan/task-key.js';
import type { Calendar } from '../src/domain/schedule/calendar.js';
import { formatInZone } from '../src/domain/schedule/time-zone.js';
import { scheduleOf } from '../src/domain/schedule/timer-schedule.js';
import { latenessOf, sinceBackfillStartOf, type Task, type Timer } from '../src/domain/timer.js';
import type { ServicePauseState } from '../src/services/apps/service-pause.js';
import type { BackfillView } from '../src/services/runs/backfill-service.js';
import type { QueuedRunView } from '../src/services/runs/run-controls.js';
import type { AttemptView, RunDetail } from '../src/services/runs/run-detail.js';

/** Timer and task JSON exactly as the API documents them. */
export function presentTimer(t: Timer) {
  return {
    id: t.id,
    app: t.app,
    name: t.name,
    cron: t.cron,
    resolvedCron: scheduleOf(t).resolvedCron,
    at: iso(t.at),
    every: t.everyMs === null ? null : formatDuration(t.everyMs),
    offset: t.everyMs === null ? null : formatDuration(t.offsetMs),
    jitterMs: t.jitterMs,
    timezone: t.timezone,
    callback: { ...t.callback },
    retry: { ...t.retry },
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: t.misfireThresholdMs,
    startAt: iso(t.startAt),
    endAt: iso(t.endAt),
    maxRuns: t.maxRuns,
    overlapPolicy: t.overlapPolicy,
    notify: t.notify === null ? null : { url: t.notify.url, on: [...t.notify.on] },
    labels: { ...t.labels },
    description: t.description,
    status: t.status,
    pausedNote: t.pausedNote,
    pausedAt: iso(t.pausedAt),
    pausedUntil: iso(t.pausedUntil),
    autoPause: t.autoPause === null ? null : { ...t.autoPause },
    skipCalendars: [...t.skipCalendars],
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

export function presentTask(t: Task) {
  return {
    id: taskKey(t.timerId, t.runAt),
    timerId: t.timerId,
    runAt: new Date(t.runAt).toISOString(),
    status: t.status,
    trigger: t.trigger,
    attempts: t.attempts,
    httpStatus: t.httpStatus,
    output: t.output,
    error: t.error,
    firedAt: iso(t.firedAt),
    firstFiredAt: iso(t.firstFiredAt ?? t.firedAt),
    latencyMs: latenessOf(t),
    sinceBackfillStartMs: sinceBackfillStartOf(t),
    durationMs: t.durationMs,
  };
}

/** A run opened: the run, its request (credentials masked) and each answer kept. */
export function presentRunDetail(d: RunDetail) {
  return {
    task: presentTask(d.task),
    request: { ...d.request, headers: { ...d.request.headers } },
    attempts: d.attempts.map(presentAttempt),
    attemptsNotKept: d.attemptsNotKept,
    latest: d.latest === null ? null : presentAttempt(d.latest),
  };
}

function presentAttempt(a: AttemptView) {
  return {
    attempt: a.attempt,
    sentAt: iso(a.sentAt),
    httpStatus: a.httpStatus,
    headers: a.headers === null ? null : { ...a.headers },
    output: a.output,
    outputBytes: a.outputBytes,
    bodyBytes: a.bodyBytes,
    durationMs: a.durationMs,
    error: a.error,
  };
}

/** A run queued on demand (run now, retry), as the 202 answers it. */
export function presentQueuedRun(r: QueuedRunView) {
  return {
    id: r.id,
    timerId: r.timerId,
    runAt: new Date(r.runAt).toISOString(),
    status: r.status,
    trigger: r.trigger,
  };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function presentBackfill({ backfill: b, progress: p }: BackfillView) {
  return {
    id: b.id,
    timerId: b.timerId,
    from: new Date(b.from).toISOString(),
    to: new Date(b.to).toISOString(),
    overlapPolicy: b.overlapPolicy,
    status: backfillState(b, p),
    runs: b.runs,
    planned: b.planned,
    sent: b.sent,
    done: p.succeeded + p.failed + p.skipped + p.missed,
    failed: p.failed,
    progress: p,
    createdBy: b.createdBy,
    createdAt: new Date(b.createdAt).toISOString(),
  };
}

/** Fire times in the schedule's zone; `timer` without an id is a schedule not saved yet. */
export function presentPreview(timer: Pick<Timer, 'timezone'> & { id?: number }, runs: number[]) {
  return {
    ...(timer.id === undefined ? {} : { timerId: timer.id }),
    timezone: timer.timezone,
    items: runs.map((ms) => formatInZone(ms, timer.timezone)),
  };
}

/** An explained preview: every nominal instant, the ones a calendar skips named by it. */
export function presentExplained(
  timer: Pick<Timer, 'id' | 'timezone'>,
  runs: ReadonlyArray<{ at: number; skippedBy: readonly string[] | null }>,
) {
  return {
    timerId: timer.id,
    timezone: timer.timezone,
    items: runs.map((r) => ({
      at: formatInZone(r.at, timer.timezone),
      skippedBy: r.skippedBy === null ? null : [...r.skippedBy],
    })),
  };
}

export function presentCalendar(c: Calendar) {
  return {
    app: c.app,
    name: c.name,
    dates: [...c.dates],
    description: c.description,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function presentAuditEntry(e: AuditEntry) {
  return { ...e, at: new Date(e.at).toISOString() };
}

/** A pause of the whole service, its instant in ISO-8601. */
function presentPause(p: ServicePauseState) {
  return { note: p.note, pausedAt: new Date(p.pausedAt).toISOString(), pausedBy: p.pausedBy };
}

/** Everything is paused: `{paused: true, note, pausedAt, pausedBy}`. */
export function presentServicePaused(p: ServicePauseState) {
  return { paused: true as const, ...presentPause(p) };
}

/** Whether everything is paused: as presentServicePaused, or `{paused: false}`. */
export function presentServicePause(p: ServicePauseState | null) {
  return p === null ? { paused: false as const } : presentServicePaused(p);
}

/** What a resume did: nothing is paused now, and the pause it ended (null if none). */
export function presentServiceResumed(ended: ServicePauseState | null) {
  return { paused: false as const, ended: ended === null ? null : presentPause(ended) };
}
