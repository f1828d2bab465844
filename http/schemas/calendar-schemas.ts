import { z } from '@hono/zod-openapi';
import { CALENDAR_LIMITS, isCalendarDate } from '../../src/domain/schedule/calendar.js';
import { AppSchema } from './common-schemas.js';
import { DescriptionSchema } from './timer-field-schemas.js';

/** An app's calendars, and the names a timer skips them by. */

export const CalendarNameSchema = z
  .string()
  .regex(
    CALENDAR_LIMITS.namePattern,
    'must be 1-64 letters, digits, dots, dashes or underscores, starting alphanumeric',
  )
  .openapi({ example: 'us-holidays' });

export const SkipCalendarsSchema = z
  .array(CalendarNameSchema)
  .max(CALENDAR_LIMITS.perTimer, `at most ${CALENDAR_LIMITS.perTimer} calendars`)
  .transform((names) => [...new Set(names)])
  .openapi({
    example: ['us-holidays'],
    description:
      "The app's calendars whose dates the timer skips: no run is planned on a listed date, read in the timer's zone (an interval's: UTC unless it names one). A calendar the app lacks: 400 CALENDAR_NOT_FOUND.",
  });

const CalendarDateSchema = z.string().refine(isCalendarDate, {
  error: (i) => `${JSON.stringify(String(i.input).slice(0, 20))} is not a date YYYY-MM-DD`,
});

export const PutCalendarSchema = z
  .strictObject({
    dates: z
      .array(CalendarDateSchema)
      .max(CALENDAR_LIMITS.maxDates, `at most ${CALENDAR_LIMITS.maxDates} dates`)
      .openapi({ example: ['2026-12-25', '2027-01-01'] }),
    description: DescriptionSchema.nullable().optional(),
  })
  .openapi('PutCalendar');

export const CalendarSchema = z
  .object({
    app: z.string(),
    name: z.string(),
    dates: z.array(z.string()),
    description: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Calendar');

export const CalendarParamSchema = z.object({
  app: AppSchema.openapi({ param: { name: 'app', in: 'path' }, example: 'billing' }),
  name: CalendarNameSchema.openapi({ param: { name: 'name', in: 'path' }, example: 'us-holidays' }),
});
