import type { z } from '@hono/zod-openapi';
import type { TimerDraft, TimerPatch } from '../src/domain/timer.js';
import type { CreateTimerFields, UpdateTimerFields } from './schemas/timer-schemas.js';

/**
 * A validated create body as the timer it asks for: absent fields as null, the default
 * callback timeout. Field by field, not by rest and spread: those copy through V8's slow
 * path (~15 µs a timer, on every create and each timer of a batch).
 */
export function draftFrom(
  input: z.output<typeof CreateTimerFields>,
  callbackTimeoutMs: number,
  extra?: Partial<TimerDraft>,
): TimerDraft {
  const draft: TimerDraft = {
    app: input.app,
    name: input.name,
    cron: input.cron ?? null,
    at: input.at ?? null,
    everyMs: input.every ?? null,
    offsetMs: input.every == null ? 0 : (input.offset ?? 0),
    jitterMs: input.jitterMs ?? 0,
    timezone: input.timezone,
    callback: {
      url: input.callback.url,
      method: input.callback.method,
      headers: input.callback.headers,
      body: input.callback.body ?? null,
      timeoutMs: input.callback.timeoutMs ?? callbackTimeoutMs,
    },
    retry: input.retry,
    misfirePolicy: input.misfirePolicy,
    misfireThresholdMs: input.misfireThresholdMs,
    startAt: input.startAt ?? null,
    endAt: input.endAt ?? null,
    maxRuns: input.maxRuns ?? null,
    overlapPolicy: input.overlapPolicy,
    notify: input.notify ?? null,
    labels: input.labels,
    description: input.description ?? null,
    status: input.status,
    autoPause: input.autoPause ?? null,
    skipCalendars: input.skipCalendars ?? [],
    skipDates: {},
  };
  return extra ? Object.assign(draft, extra) : draft;
}

/** A validated PATCH body as the patch it asks for: an interval's durations as ms. */
export function patchFrom(input: z.output<typeof UpdateTimerFields>): TimerPatch {
  const { every, offset, ...rest } = input;
  return {
    ...rest,
    ...(every === undefined ? {} : { everyMs: every }),
    ...(offset === undefined ? {} : { offsetMs: offset }),
  };
}
