import type { Command } from 'commander';
import { timerId } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';
import { UsageError } from '../errors.js';
import { renderAppPaused, renderAppResumed, renderTimerPaused, renderTimerResumed } from '../pause-view.js';
import { disableTimer, enableTimer, pauseFrom } from '../timer-pausing.js';

interface Target {
  app?: string;
}

/** One timer or one app, never both: `pause 12` or `pause --app billing`. */
function oneOf(id: string | undefined, opts: Target, verb: string): { id: string } | { app: string } {
  if (id !== undefined && opts.app !== undefined)
    throw new UsageError(`${verb} one timer or one app (--app), not both`);
  if (id !== undefined) return { id };
  if (opts.app !== undefined) return { app: opts.app };
  throw new UsageError(`${verb} needs a timer id, or --app <name> for every timer of an app`);
}

/**
 * `xtimer pause` and `xtimer resume`: a timer, or all of an app's, stopped for a while with a
 * note, and started again; the same calls as `timers disable|enable` and the app's pause route.
 */
export function registerPauseCommands(program: Command, ctx: CliContext): void {
  const { out, colors, globals, clientOf, printJson } = ctx;

  program
    .command('pause')
    .description(
      'Pause a timer, or with --app every active timer of an app: nothing due fires until resume or --until',
    )
    .argument('[timer]', 'timer id', timerId)
    .option('--app <name>', 'every active timer of this app instead of one timer')
    .option('--note <text>', 'why (shown on the timer and in the console)')
    .option('--until <time>', 'resume by itself at this ISO time, or after this long (30m, 2h)')
    .action(
      async (id: string | undefined, opts: Target & { note?: string; until?: string }, cmd: Command) => {
        const target = oneOf(id, opts, 'pause');
        const pause = pauseFrom(opts, Date.now());
        if ('id' in target) {
          const timer = await disableTimer(ctx, cmd, target.id, pause);
          if (globals(cmd).json) return printJson(timer);
          return out(renderTimerPaused(timer, colors));
        }
        const changed = await must(
          clientOf(cmd).POST('/api/v1/apps/{app}/pause', {
            params: { path: { app: target.app } },
            body: pause,
          }),
        );
        if (globals(cmd).json) return printJson(changed);
        out(renderAppPaused(changed, pause, colors));
      },
    );

  program
    .command('resume')
    .description('Resume a paused timer, or with --app every disabled timer of an app')
    .argument('[timer]', 'timer id', timerId)
    .option('--app <name>', 'every disabled timer of this app instead of one timer')
    .action(async (id: string | undefined, opts: Target, cmd: Command) => {
      const target = oneOf(id, opts, 'resume');
      if ('id' in target) {
        const timer = await enableTimer(ctx, cmd, target.id);
        if (globals(cmd).json) return printJson(timer);
        return out(renderTimerResumed(timer, colors));
      }
      const changed = await must(
        clientOf(cmd).POST('/api/v1/apps/{app}/resume', { params: { path: { app: target.app } } }),
      );
      if (globals(cmd).json) return printJson(changed);
      out(renderAppResumed(changed, colors));
    });
}
