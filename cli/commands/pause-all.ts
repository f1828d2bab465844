import type { Command } from 'commander';
import { type CliContext, must } from '../cli-context.js';
import { renderPauseState, renderResumed } from '../pause-view.js';

/** The emergency brake (the admin token's): one pause of every app, with a note. */
export function registerPauseAllCommands(program: Command, ctx: CliContext): void {
  const { out, colors, globals, clientOf, printJson } = ctx;

  program
    .command('pause-all')
    .description(
      'Pause every app (admin): scheduled runs and backfills are recorded skipped, not called, until resume-all',
    )
    .requiredOption('--note <text>', 'why (required): every skipped run records "paused: <note>"')
    .action(async (opts: { note: string }, cmd: Command) => {
      const paused = await must(clientOf(cmd).POST('/api/v1/pause', { body: { note: opts.note } }));
      if (globals(cmd).json) return printJson(paused);
      out(renderPauseState(paused, colors));
    });

  program
    .command('resume-all')
    .description('End the pause of every app (admin): runs due from now on are called again')
    .action(async (_opts: unknown, cmd: Command) => {
      const resumed = await must(clientOf(cmd).POST('/api/v1/resume'));
      if (globals(cmd).json) return printJson(resumed);
      out(renderResumed(resumed, colors));
    });

  program
    .command('pause-state')
    .description('Whether every app is paused, and since when, by whom and why (admin)')
    .action(async (_opts: unknown, cmd: Command) => {
      const state = await must(clientOf(cmd).GET('/api/v1/pause'));
      if (globals(cmd).json) return printJson(state);
      out(renderPauseState(state, colors));
    });
}
