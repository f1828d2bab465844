import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { positiveInt, timerId } from '../arguments.js';
import { type CliContext, collectPages, must } from '../cli-context.js';
import { UsageError } from '../errors.js';
import { table } from '../terminal.js';
import { disableTimer, enableTimer, pauseFrom } from '../timer-pausing.js';
import { scheduleOf } from '../timer-view.js';
import { bodyFrom } from '../timers-file.js';
import { registerBackfillCommands } from './backfills.js';

type Timer = components['schemas']['Timer'];

/** `xtimer timers …`: list, read and change one timer at a time. */
export function registerTimerCommands(program: Command, ctx: CliContext): void {
  const { out, globals, clientOf, printJson, printTimer } = ctx;
  const timers = program.command('timers').description('List, read and change timers');

  timers
    .command('list')
    .description('List timers (id order)')
    .option('--app <app>', 'only this app’s timers')
    .option('--status <status>', 'only timers in this status (inactive, active, completed)')
    .option('--label <key:value>', 'only timers carrying this label')
    .option('--limit <n>', 'at most this many', positiveInt, 200)
    .action(async (opts: { app?: string; status?: string; label?: string; limit: number }, cmd: Command) => {
      const client = clientOf(cmd);
      const items = await collectPages(opts.limit, (cursor, limit) =>
        must(
          client.GET('/api/v1/timers', {
            params: {
              query: {
                ...(opts.app === undefined ? {} : { app: opts.app }),
                ...(opts.status === undefined ? {} : { status: opts.status as Timer['status'] }),
                ...(opts.label === undefined ? {} : { label: opts.label }),
                ...(cursor === undefined ? {} : { cursor }),
                limit,
              },
            },
          }),
        ),
      );
      if (globals(cmd).json) return printJson(items);
      const rows = items.map((t) => [
        String(t.id),
        t.app,
        t.name,
        t.status,
        scheduleOf(t),
        t.timezone,
        `${t.callback.method} ${t.callback.url}`,
      ]);
      out(table(['ID', 'APP', 'NAME', 'STATUS', 'SCHEDULE', 'TIMEZONE', 'CALLBACK'], rows));
    });

  timers
    .command('get')
    .description('Show a timer')
    .argument('<id>', 'timer id', timerId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      printTimer(cmd, await must(clientOf(cmd).GET('/api/v1/timers/{id}', { params: { path: { id } } })));
    });

  timers
    .command('create')
    .description('Create a timer from a YAML or JSON file (the API’s create body), or from --data')
    .option('-f, --file <path>', 'the timer, as YAML or JSON')
    .option('--data <json>', 'the timer, as JSON')
    .action(async (opts: { file?: string; data?: string }, cmd: Command) => {
      const body = bodyFrom(opts) as components['schemas']['CreateTimer'];
      printTimer(cmd, await must(clientOf(cmd).POST('/api/v1/timers', { body })));
    });

  timers
    .command('update')
    .description('Change a timer: only the fields given (the API’s PATCH body), from a file or --data')
    .argument('<id>', 'timer id', timerId)
    .option('-f, --file <path>', 'the fields, as YAML or JSON')
    .option('--data <json>', 'the fields, as JSON, e.g. {"cron": "0 */5 * * * *"}')
    .option('--if-match <etag>', 'only if the timer is still at this version (its ETag)')
    .action(async (id: string, opts: { file?: string; data?: string; ifMatch?: string }, cmd: Command) => {
      const body = bodyFrom(opts) as components['schemas']['UpdateTimer'];
      const header = opts.ifMatch === undefined ? {} : { 'if-match': opts.ifMatch };
      printTimer(
        cmd,
        await must(clientOf(cmd).PATCH('/api/v1/timers/{id}', { params: { path: { id }, header }, body })),
      );
    });

  timers
    .command('preview')
    .description('A saved timer’s next fire times, in its time zone')
    .argument('<id>', 'timer id', timerId)
    .option('--from <time>', 'from this time (ISO-8601 or epoch ms) instead of now')
    .option('--count <n>', 'how many fire times', positiveInt, 10)
    .option('--explain', 'every instant of the schedule, naming the calendars that skip one')
    .action(async (id: string, opts: { from?: string; count: number; explain?: boolean }, cmd: Command) => {
      const preview = await must(
        clientOf(cmd).GET('/api/v1/timers/{id}/preview', {
          params: {
            path: { id },
            query: {
              count: opts.count,
              ...(opts.from === undefined ? {} : { from: opts.from }),
              ...(opts.explain ? { explain: 'true' } : {}),
            },
          },
        }),
      );
      if (globals(cmd).json) return printJson(preview);
      const line = (item: string | { at: string; skippedBy: string[] | null }) =>
        typeof item === 'string'
          ? item
          : `${item.at}${item.skippedBy ? `  skipped: calendar ${item.skippedBy.join(', ')}` : ''}`;
      out(preview.items.map((item) => `${line(item)}\n`).join(''));
    });

  timers
    .command('delete')
    .description('Delete a timer and cancel its pending runs')
    .argument('<id>', 'timer id', timerId)
    .option('--if-match <etag>', 'only if the timer is still at this version (its ETag)')
    .action(async (id: string, opts: { ifMatch?: string }, cmd: Command) => {
      await must(
        clientOf(cmd).DELETE('/api/v1/timers/{id}', {
          params: { path: { id }, header: opts.ifMatch === undefined ? {} : { 'if-match': opts.ifMatch } },
        }),
      );
      if (globals(cmd).json) printJson({ id: Number(id), deleted: true });
      else out(`Deleted timer ${id}.\n`);
    });

  timers
    .command('enable')
    .description('Activate a timer: its runs are planned at once')
    .argument('<id>', 'timer id', timerId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      printTimer(cmd, await enableTimer(ctx, cmd, id));
    });

  timers
    .command('disable')
    .description('Deactivate a timer: nothing due after this fires')
    .argument('<id>', 'timer id', timerId)
    .option('--note <text>', 'why (shown on the timer and in the console)')
    .option('--until <time>', 'resume by itself at this ISO time, or after this long (30m, 2h)')
    .action(async (id: string, opts: { note?: string; until?: string }, cmd: Command) => {
      printTimer(cmd, await disableTimer(ctx, cmd, id, pauseFrom(opts, Date.now())));
    });

  registerBackfillCommands(timers, ctx);

  timers
    .command('trigger')
    .description('Run a timer now, whatever its status')
    .argument('<id>', 'timer id', timerId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const run = await must(clientOf(cmd).POST('/api/v1/timers/{id}/trigger', { params: { path: { id } } }));
      if (globals(cmd).json) return printJson(run);
      out(`Queued run ${run.id} of timer ${run.timerId} at ${run.runAt}.\n`);
    });

  timers
    .command('bulk')
    .description('Pause, resume or run now several timers at once, as one audited batch')
    .argument('<action>', 'pause, resume or trigger')
    .argument('<ids...>', 'timer ids')
    .option('--note <text>', 'pause: why (shown on each timer and in the console)')
    .option('--until <time>', 'pause: resume by itself at this ISO time, or after this long (30m, 2h)')
    .action(async (action: string, ids: string[], opts: { note?: string; until?: string }, cmd: Command) => {
      const actions = ['pause', 'resume', 'trigger'] as const;
      const chosen = actions.find((a) => a === action);
      if (chosen === undefined) throw new UsageError(`${action}: the action is pause, resume or trigger`);
      if (action !== 'pause' && (opts.note !== undefined || opts.until !== undefined))
        throw new UsageError('--note and --until go with pause only');
      const bad = ids.find((id) => !/^[1-9][0-9]{0,14}$/.test(id));
      if (bad !== undefined) throw new UsageError(`${bad}: expected a timer id (a positive number)`);
      const body = { action: chosen, ids: ids.map(Number), ...pauseFrom(opts, Date.now()) };
      const result = await must(clientOf(cmd).POST('/api/v1/timers/bulk', { body }));
      if (globals(cmd).json) return printJson(result);
      const did = { pause: 'Paused', resume: 'Resumed', trigger: 'Ran now' }[chosen];
      const left = result.unchanged.length === 0 ? '' : `; unchanged: ${result.unchanged.join(', ')}`;
      out(`${did} ${result.changed} of ${result.selected} timers (batch ${result.batchId})${left}.\n`);
    });
}
