import { taskKey } from '../src/domain/task-key.js';
import { formatInZone } from '../src/domain/time-zone.js';
import type { Task, Timer } from '../src/domain/timer.js';

/** Timer and task JSON exactly as SPEC §7 shows them. */
export function presentTimer(t: Timer) {
  return {
    id: t.id,
    app: t.app,
    name: t.name,
    cron: t.cron,
    timezone: t.timezone,
    callback: { ...t.callback },
    retry: { ...t.retry },
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: t.misfireThresholdMs,
    status: t.status,
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
    attempts: t.attempts,
    httpStatus: t.httpStatus,
    output: t.output,
    error: t.error,
    firedAt: t.firedAt === null ? null : new Date(t.firedAt).toISOString(),
    latencyMs: t.firedAt === null ? null : t.firedAt - t.runAt,
    durationMs: t.durationMs,
  };
}

export function presentPreview(timer: Timer, runs: number[]) {
  return {
    timerId: timer.id,
    timezone: timer.timezone,
    items: runs.map((ms) => formatInZone(ms, timer.timezone)),
  };
}
