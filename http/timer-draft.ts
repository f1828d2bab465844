import type { z } from '@hono/zod-openapi';
import type { TimerDraft } from '../src/domain/timer.js';
import type { CreateTimerFields } from './schemas/timer-schemas.js';

/** A validated create body as the timer it asks for: absent fields as null, the default callback timeout. */
export function draftFrom(
  input: z.output<typeof CreateTimerFields>,
  callbackTimeoutMs: number,
  extra: Partial<TimerDraft> = {},
): TimerDraft {
  return {
    ...input,
    cron: input.cron ?? null,
    at: input.at ?? null,
    startAt: input.startAt ?? null,
    endAt: input.endAt ?? null,
    maxRuns: input.maxRuns ?? null,
    notify: input.notify ?? null,
    description: input.description ?? null,
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
