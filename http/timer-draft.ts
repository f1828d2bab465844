import type { z } from '@hono/zod-openapi';
import type { TimerDraft, TimerPatch } from '../src/domain/timer.js';
import type { CreateTimerFields, UpdateTimerFields } from './schemas/timer-schemas.js';

/** A validated create body as the timer it asks for: absent fields as null, the default callback timeout. */
export function draftFrom(
  input: z.output<typeof CreateTimerFields>,
  callbackTimeoutMs: number,
  extra: Partial<TimerDraft> = {},
): TimerDraft {
  const { every, offset, ...rest } = input;
  return {
    ...rest,
    cron: input.cron ?? null,
    at: input.at ?? null,
    everyMs: every ?? null,
    offsetMs: every == null ? 0 : (offset ?? 0),
    jitterMs: rest.jitterMs ?? 0,
    startAt: input.startAt ?? null,
    endAt: input.endAt ?? null,
    maxRuns: input.maxRuns ?? null,
    notify: input.notify ?? null,
    description: input.description ?? null,
    autoPause: input.autoPause ?? null,
    skipCalendars: input.skipCalendars ?? [],
    skipDates: {},
    callback: {
      url: input.callback.url,
      method: input.callback.method,
      headers: input.callback.headers,
      body: input.callback.body ?? null,
      timeoutMs: input.callback.timeoutMs ?? callbackTimeoutMs,
    },
    ...extra,
  };
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
