import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { backfillId, timerId } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';
import { table } from '../terminal.js';

type Backfill = components['schemas']['Backfill'];

/** `xtimer timers backfill | backfills | backfill-cancel`: a timer's runs over a past range, paced. */
export function registerBackfillCommands(timers: Command, ctx: CliContext): void {
  const { out, globals, clientOf, printJson } = ctx;
  const progress = (b: Backfill) => `sent ${b.sent} of ${b.planned}, ended ${b.done} (${b.failed} failed)`;
  const summary = (b: Backfill) => `Backfill ${b.id} of timer ${b.timerId} ${b.status}: ${progress(b)}`;

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
          const now = progress(b);
          if (!json && now !== said) out(`  ${now}\n`);
          said = now;
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
    .command('backfills')
    .description('A timer’s backfills, newest first; or one of them, with its runs by status')
    .argument('<id>', 'timer id', timerId)
    .argument('[backfillId]', 'one backfill', backfillId)
    .action(async (id: string, one: string | undefined, _opts: unknown, cmd: Command) => {
      const client = clientOf(cmd);
      if (one !== undefined) {
        const b = await must(
          client.GET('/api/v1/timers/{id}/backfills/{backfillId}', {
            params: { path: { id, backfillId: one } },
          }),
        );
        if (globals(cmd).json) return printJson(b);
        const runs = Object.entries(b.progress)
          .map(([status, n]) => `${status} ${n}`)
          .join(', ');
        return out(`${summary(b)}\n  range ${b.from} → ${b.to}; runs: ${runs}\n`);
      }
      const { items } = await must(client.GET('/api/v1/timers/{id}/backfills', { params: { path: { id } } }));
      if (globals(cmd).json) return printJson(items);
      const rows = items.map((b) => [
        String(b.id),
        b.status,
        b.from,
        b.to,
        `${b.sent}/${b.planned}`,
        String(b.done),
        String(b.failed),
        b.createdAt,
      ]);
      out(table(['ID', 'STATUS', 'FROM', 'TO', 'SENT', 'ENDED', 'FAILED', 'CREATED'], rows));
    });

  timers
    .command('backfill-cancel')
    .description('Cancel a backfill: its runs not yet sent are not sent')
    .argument('<id>', 'timer id', timerId)
    .argument('<backfillId>', 'the backfill', backfillId)
    .action(async (id: string, one: string, _opts: unknown, cmd: Command) => {
      const b = await must(
        clientOf(cmd).DELETE('/api/v1/timers/{id}/backfills/{backfillId}', {
          params: { path: { id, backfillId: one } },
        }),
      );
      if (globals(cmd).json) return printJson(b);
      out(`${summary(b)}\n`);
    });
}
