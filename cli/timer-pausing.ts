import type { Command } from 'commander';
import type { components } from '../client/index.js';
import { untilTime } from './arguments.js';
import { type CliContext, must } from './cli-context.js';

type Timer = components['schemas']['Timer'];
type Pause = components['schemas']['Pause'];

/** The calls that pause and resume a timer, shared by `timers disable|enable` and `pause|resume`. */

/** The Pause body of `--note` and `--until` (an ISO time, or a duration from `nowMs`). */
export function pauseFrom(opts: { note?: string; until?: string }, nowMs: number): Pause {
  return {
    ...(opts.note === undefined ? {} : { note: opts.note }),
    ...(opts.until === undefined ? {} : { until: untilTime(opts.until, nowMs) }),
  };
}

export const disableTimer = (ctx: CliContext, cmd: Command, id: string, pause: Pause): Promise<Timer> =>
  must(ctx.clientOf(cmd).POST('/api/v1/timers/{id}/disable', { params: { path: { id } }, body: pause }));

export const enableTimer = (ctx: CliContext, cmd: Command, id: string): Promise<Timer> =>
  must(ctx.clientOf(cmd).POST('/api/v1/timers/{id}/enable', { params: { path: { id } } }));
