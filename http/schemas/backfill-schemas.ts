import { z } from '@hono/zod-openapi';
import { BACKFILL_STATES } from '../../src/domain/backfill.js';
import { OVERLAP_POLICIES } from '../../src/domain/timer.js';
import { IsoInstantSchema, PositiveIdSchema } from './common-schemas.js';
import { OverlapPolicySchema } from './timer-field-schemas.js';
import { IdParamSchema } from './timer-schemas.js';

/** Backfills: the past range a timer's schedule is run over, and how its runs stand. */

/** POST /timers/{id}/backfills: the past range to run the schedule over. */
export const StartBackfillSchema = z
  .strictObject({
    from: IsoInstantSchema.openapi({ description: 'The first instant of the range (included).' }),
    to: IsoInstantSchema.openapi({
      description: 'The end of the range (excluded); not after now.',
      example: '2026-12-02T09:00:00Z',
    }),
    overlapPolicy: OverlapPolicySchema.optional().openapi({
      description:
        "What a backfill run does while the timer's previous run is in flight (default: the timer's policy).",
    }),
  })
  .openapi('StartBackfill');

export const BackfillParamSchema = IdParamSchema.extend({
  backfillId: PositiveIdSchema.openapi({ param: { name: 'backfillId', in: 'path' }, example: '7' }),
});

const BackfillProgressSchema = z
  .object({
    pending: z.number().int(),
    running: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    missed: z.number().int(),
  })
  .openapi('BackfillProgress');

export const BackfillSchema = z
  .object({
    id: z.number().int().openapi({ example: 7 }),
    timerId: z.number().int(),
    from: z.string(),
    to: z.string(),
    overlapPolicy: z.enum(OVERLAP_POLICIES).nullable(),
    status: z.enum(BACKFILL_STATES).openapi({
      description:
        'sending (queuing its runs at BACKFILL_RATE), sent (all queued, waiting for outcomes), completed (every run ended), cancelled',
    }),
    runs: z.number().int().openapi({ description: "The schedule's instants in the range." }),
    planned: z.number().int().openapi({
      description: 'Runs the backfill made: instants already in the run history are left alone.',
    }),
    sent: z.number().int().openapi({ description: 'Runs queued so far.' }),
    done: z
      .number()
      .int()
      .openapi({ description: 'Runs that have ended (succeeded, failed, skipped or missed).' }),
    failed: z.number().int(),
    progress: BackfillProgressSchema.openapi({ description: 'Its runs by status.' }),
    createdBy: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('Backfill');

/** POST /timers/{id}/backfills/preview: what a backfill over the range would run, before it starts. */
export const BackfillPreviewSchema = z
  .object({
    runs: z.number().int().openapi({ description: "The schedule's instants in the range." }),
    planned: z.number().int().openapi({
      description: 'Those it would send: instants already in the run history are left alone.',
    }),
  })
  .openapi('BackfillPreview');
