import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { positiveInt, timerId } from '../arguments.js';
import { type CliContext, collectPages, must } from '../cli-context.js';
import { table } from '../terminal.js';

type Entry = components['schemas']['AuditEntry'];

/** `xtimer audit`: who changed what, newest first. */
export function registerAuditCommand(program: Command, ctx: CliContext): void {
  const { out, globals, clientOf, printJson } = ctx;
  program
    .command('audit')
    .description('The audit log: every change made through the API, the console or the CLI, newest first')
    .option('--app <app>', 'only this app’s changes')
    .option('--timer <id>', 'only this timer’s changes', timerId)
    .option('--batch <id>', 'only the changes of one batch (an apply, a bulk action)')
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .action(async (opts: { app?: string; timer?: string; batch?: string; limit: number }, cmd: Command) => {
      const client = clientOf(cmd);
      const items = await collectPages(opts.limit, (cursor, limit) =>
        must(
          client.GET('/api/v1/audit', {
            params: {
              query: {
                ...(opts.app === undefined ? {} : { app: opts.app }),
                ...(opts.timer === undefined ? {} : { timerId: opts.timer }),
                ...(opts.batch === undefined ? {} : { batchId: opts.batch }),
                ...(cursor === undefined ? {} : { cursor }),
                limit,
              },
            },
          }),
        ),
      );
      if (globals(cmd).json) return printJson(items);
      const fields = (e: Entry) => Object.keys({ ...e.before, ...e.after }).join(', ');
      const rows = items.map((e) => [
        e.at,
        e.actor,
        e.action,
        e.app,
        e.timerId === null ? '' : String(e.timerId),
        fields(e),
      ]);
      out(table(['AT', 'ACTOR', 'ACTION', 'APP', 'TIMER', 'FIELDS'], rows));
    });
}
