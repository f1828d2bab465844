import { z } from '@hono/zod-openapi';

/** The emergency brake's body and answers (docs/operating.md "Emergency brake"). */

/** As long as service_pause.note holds. */
export const SERVICE_PAUSE_NOTE_MAX_CHARS = 1024;

// One line: the note becomes every skipped run's error ("paused: <note>"), shown on one line.
const ONE_LINE = /^[^\p{Cc}\p{Cs}]*$/u;

export const PauseAllSchema = z
  .strictObject({
    note: z
      .string({
        error: (issue) =>
          issue.input === undefined ? 'required: say why everything is paused' : 'must be a string',
      })
      .trim()
      .min(1, 'must not be empty: say why everything is paused')
      .max(SERVICE_PAUSE_NOTE_MAX_CHARS, `must be at most ${SERVICE_PAUSE_NOTE_MAX_CHARS} characters`)
      .regex(ONE_LINE, 'must be one line, without control characters')
      .openapi({
        example: 'INC-1234: payments receiver down',
        description: `Why (1-${SERVICE_PAUSE_NOTE_MAX_CHARS} characters, one line). Every run skipped meanwhile records "paused: <note>".`,
      }),
  })
  .openapi('PauseAll');

const PAUSE_FIELDS = {
  note: z.string().openapi({ example: 'INC-1234: payments receiver down' }),
  pausedAt: z.string().openapi({
    example: '2026-11-22T10:05:03.123Z',
    description: 'When the pause began (a new note keeps it).',
  }),
  pausedBy: z.string().openapi({
    example: 'admin',
    description: 'Who paused, or last changed the note: admin, or open (no admin token configured).',
  }),
};

export const ServicePausedSchema = z
  .object({ paused: z.literal(true), ...PAUSE_FIELDS })
  .openapi('ServicePaused', {
    description:
      'Everything is paused: scheduled runs and backfills are recorded skipped, not called; run now and retry still go.',
  });

export const ServiceRunningSchema = z
  .object({ paused: z.literal(false) })
  .openapi('ServiceRunning', { description: 'Nothing is paused: runs are called as scheduled.' });

export const ServicePauseStateSchema = z
  .union([ServicePausedSchema, ServiceRunningSchema])
  .openapi('ServicePauseState');

export const ServiceResumedSchema = z
  .object({
    paused: z.literal(false),
    ended: z
      .object(PAUSE_FIELDS)
      .nullable()
      .openapi({ description: 'The pause this resume ended; null if nothing was paused.' }),
  })
  .openapi('ServiceResumed');
