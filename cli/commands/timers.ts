import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { positiveInt, timerId } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';
import { UsageError } from '../errors.js';
import { table } from '../terminal.js';
import { disableTimer, enableTimer, pauseFrom } from '../timer-pausing.js';
import { scheduleOf } from '../timer-view.js';
import { readDocument } from '../timers-file.js';

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
      const items: Timer[] = [];
      let cursor: string | undefined;
      do {
        const page = await must(
          client.GET('/api/v1/timers', {
            params: {
              query: {
                ...(opts.app === undefined ? {} : { app: opts.app }),
                ...(opts.status === undefined ? {} : { status: opts.status as Timer['status'] }),
                ...(opts.label === undefined ? {} : { label: opts.label }),
                ...(cursor === undefined ? {} : { cursor }),
                limit: Math.min(500, opts.limit - items.length),
              },
            },
          }),
        );
        items.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined && items.length < opts.limit);
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
      if ((opts.file === undefined) === (opts.data === undefined))
        throw new UsageError('give one of -f <file> and --data <json>');
      let body: unknown;
      if (opts.file !== undefined) body = readDocument(opts.file);
      else {
        try {
          body = JSON.parse(opts.data!);
        } catch (err) {
          throw new UsageError(`--data is not JSON: ${(err as Error).message}`);
        }
      }
      const created = await must(
        clientOf(cmd).POST('/api/v1/timers', { body: body as components['schemas']['CreateTimer'] }),
      );
      printTimer(cmd, created);
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

  timers
    .command('backfill')
    .description('Run the schedule’s runs over a past range [from, to), paced; prints the backfill')
    .argument('<id>', 'timer id', timerId)
    .requiredOption('--from <time>', 'the first instant of the range (ISO time, included)')
    .requiredOption('--to <time>', 'the end of the range (ISO time, not included)')
    .option('--wait', 'print its progress until all its runs have ended')
    .option('--dry-run', 'say how many runs it would send, and start nothing')
    .action(
      async (
        id: string,
        opts: { from: string; to: string; wait?: boolean; dryRun?: boolean },
        cmd: Command,
      ) => {
        const client = clientOf(cmd);
        if (opts.dryRun) {
          const p = await must(
            client.POST('/api/v1/timers/{id}/backfills/preview', {
              params: { path: { id } },
              body: { from: opts.from, to: opts.to },
            }),
          );
          if (globals(cmd).json) return printJson(p);
          return out(
            `${p.runs} runs in the range; ${p.planned} would be sent (${p.runs - p.planned} already in the history).\n`,
          );
        }
        let b = await must(
          client.POST('/api/v1/timers/{id}/backfills', {
            params: { path: { id } },
            body: { from: opts.from, to: opts.to },
          }),
        );
        const json = globals(cmd).json;
        if (!json)
          out(
            `Backfill ${b.id} of timer ${b.timerId}: ${b.planned} of ${b.runs} runs to send (${b.status}).\n`,
          );
        let said = '';
        while (opts.wait && b.status !== 'completed' && b.status !== 'cancelled') {
          const progress = `sent ${b.sent} of ${b.planned}, ended ${b.done} (${b.failed} failed)`;
          if (!json && progress !== said) out(`  ${progress}\n`);
          said = progress;
          await new Promise((resolve) => setTimeout(resolve, 1000));
          b = await must(
            client.GET('/api/v1/timers/{id}/backfills/{backfillId}', {
              params: { path: { id, backfillId: String(b.id) } },
            }),
          );
        }
        if (json) return printJson(b);
        if (opts.wait)
          out(`Backfill ${b.id} ${b.status}: ${b.done} of ${b.planned} runs ended, ${b.failed} failed.\n`);
      },
    );

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
