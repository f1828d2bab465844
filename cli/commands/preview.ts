import type { Command } from 'commander';
import { positiveInt } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';

/** `xtimer preview`: the fire times of a schedule not saved yet. */
export function registerPreviewCommand(program: Command, ctx: CliContext): void {
  const { out, globals, clientOf, printJson } = ctx;

  program
    .command('preview')
    .description('The next fire times of a schedule not saved yet: a cron, or --every')
    .argument('[cron]', 'cron, 5 fields (minute precision) or 6 (seconds first)')
    .option('--every <duration>', 'an interval instead of a cron (90s, 15m, 2h)')
    .option('--offset <duration>', 'with --every: where in each interval it fires')
    .option('--tz <zone>', 'IANA time zone', 'UTC')
    .option('--from <time>', 'from this time (ISO-8601 or epoch ms) instead of now')
    .option('--count <n>', 'how many fire times', positiveInt, 10)
    .action(
      async (
        cron: string | undefined,
        opts: { every?: string; offset?: string; tz: string; from?: string; count: number },
        cmd: Command,
      ) => {
        const preview = await must(
          clientOf(cmd).GET('/api/v1/preview', {
            params: {
              query: {
                ...(cron === undefined ? {} : { cron }),
                ...(opts.every === undefined ? {} : { every: opts.every }),
                ...(opts.offset === undefined ? {} : { offset: opts.offset }),
                timezone: opts.tz,
                count: opts.count,
                ...(opts.from === undefined ? {} : { from: opts.from }),
              },
            },
          }),
        );
        if (globals(cmd).json) return printJson(preview);
        out(preview.items.map((t) => `${t}\n`).join(''));
      },
    );
}
