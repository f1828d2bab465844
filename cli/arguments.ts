import { InvalidArgumentError } from 'commander';
import { DurationSyntaxError, parseDuration } from '../src/domain/duration.js';
import { UsageError } from './errors.js';

/** Parsers of command-line values: a wrong one is a usage error (exit 2) naming what was expected. */

export const positiveInt = (value: string): number => {
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
};

/** An id as the API takes it in a path: a positive number, kept as text. */
const positiveId =
  (what: string) =>
  (value: string): string => {
    if (!/^[1-9][0-9]{0,14}$/.test(value))
      throw new InvalidArgumentError(`expected a ${what} id (a positive number)`);
    return value;
  };

export const timerId = positiveId('timer');
export const backfillId = positiveId('backfill');

/** Whole seconds from 0 to `max`; an empty value is refused, not read as 0. */
export const seconds =
  (max: number) =>
  (value: string): number => {
    if (!/^[0-9]{1,9}$/.test(value) || Number(value) > max)
      throw new InvalidArgumentError(`expected whole seconds from 0 to ${max}`);
    return Number(value);
  };

/**
 * `--until` as written: an ISO time, passed on for the API to check, or a duration from now
 * (`30m`, `2h`, `1h30m`, `PT90M`, as a timer's `every`), made the ISO time it ends at.
 */
export function untilTime(value: string, nowMs: number): string {
  let ms: number | undefined;
  try {
    ms = parseDuration(value);
  } catch (err) {
    if (!(err instanceof DurationSyntaxError)) throw err;
  }
  if (ms === undefined) {
    if (!/^\d{4}-\d\d-\d\dT/.test(value))
      throw new UsageError(
        `--until ${JSON.stringify(value)}: expected an ISO time (2030-01-01T09:00:00Z) or a duration from now (30m, 2h)`,
      );
    return value;
  }
  if (ms <= 0)
    throw new UsageError(`--until ${JSON.stringify(value)}: a duration from now must be longer than 0`);
  return new Date(nowMs + ms).toISOString();
}
