import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { type CliContext, must } from '../cli-context.js';
import { table } from '../terminal.js';

type Calendar = components['schemas']['Calendar'];

/** `xtimer calendars …`: an app's calendars of dates its timers skip. */
export function registerCalendarCommands(program: Command, ctx: CliContext): void {
  const { out, globals, clientOf, printJson } = ctx;
  const calendars = program
    .command('calendars')
    .description('An app’s calendars: dates (holidays) on which the timers naming them plan no run');

  const printCalendar = (cmd: Command, c: Calendar): void => {
    if (globals(cmd).json) {
      printJson(c);
      return;
    }
    out(
      `${c.app}/${c.name}${c.description ? `: ${c.description}` : ''} (${c.dates.length} dates, updated ${c.updatedAt})\n`,
    );
    out(c.dates.map((d) => `${d}\n`).join(''));
  };

  calendars
    .command('list')
    .description('List an app’s calendars')
    .argument('<app>', 'app name')
    .action(async (app: string, _opts: unknown, cmd: Command) => {
      const { items } = await must(
        clientOf(cmd).GET('/api/v1/apps/{app}/calendars', { params: { path: { app } } }),
      );
      if (globals(cmd).json) return printJson(items);
      const rows = items.map((c) => [c.name, String(c.dates.length), c.description ?? '', c.updatedAt]);
      out(table(['NAME', 'DATES', 'DESCRIPTION', 'UPDATED'], rows));
    });

  calendars
    .command('get')
    .description('Show a calendar and its dates')
    .argument('<app>', 'app name')
    .argument('<name>', 'calendar name')
    .action(async (app: string, name: string, _opts: unknown, cmd: Command) => {
      printCalendar(
        cmd,
        await must(
          clientOf(cmd).GET('/api/v1/apps/{app}/calendars/{name}', { params: { path: { app, name } } }),
        ),
      );
    });

  calendars
    .command('set')
    .description(
      'Create or replace a calendar whole (its dates, and its description: none unless given); the timers naming it are planned again',
    )
    .argument('<app>', 'app name')
    .argument('<name>', 'calendar name')
    .argument('[dates...]', 'dates YYYY-MM-DD (none: an empty calendar)')
    .option('--description <text>', 'what the dates are')
    .action(
      async (app: string, name: string, dates: string[], opts: { description?: string }, cmd: Command) => {
        printCalendar(
          cmd,
          await must(
            clientOf(cmd).PUT('/api/v1/apps/{app}/calendars/{name}', {
              params: { path: { app, name } },
              body: { dates, ...(opts.description === undefined ? {} : { description: opts.description }) },
            }),
          ),
        );
      },
    );

  calendars
    .command('delete')
    .description('Delete a calendar no timer names')
    .argument('<app>', 'app name')
    .argument('<name>', 'calendar name')
    .action(async (app: string, name: string, _opts: unknown, cmd: Command) => {
      await must(
        clientOf(cmd).DELETE('/api/v1/apps/{app}/calendars/{name}', { params: { path: { app, name } } }),
      );
      if (globals(cmd).json) printJson({ app, name, deleted: true });
      else out(`Deleted calendar ${app}/${name}.\n`);
    });
}
