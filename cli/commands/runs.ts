import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { positiveInt, timerId } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';
import { UsageError } from '../errors.js';
import { table } from '../terminal.js';

type Task = components['schemas']['Task'];

/** Outcomes `runs --follow` reports: a run that has ended (a retry may end it again). */
const SETTLED = new Set(['succeeded', 'failed', 'skipped', 'missed']);

/** `xtimer retry` and `xtimer runs`: a timer's runs, read, followed and sent again. */
export function registerRunCommands(program: Command, ctx: CliContext): void {
  const { out, colors, globals, clientOf, printJson } = ctx;

  program
    .command('retry')
    .description('Send an ended run again, as its next attempt (same task id)')
    .argument('<taskId>', 'the run’s task id, <timerId>_<runAtMs>')
    .action(async (taskId: string, _opts: unknown, cmd: Command) => {
      const id = /^([1-9][0-9]{0,15})_[0-9]{1,16}$/.exec(taskId)?.[1];
      if (id === undefined) throw new UsageError(`${taskId}: a task id is <timerId>_<runAtMs>`);
      const run = await must(
        clientOf(cmd).POST('/api/v1/timers/{id}/tasks/{taskId}/retry', { params: { path: { id, taskId } } }),
      );
      if (globals(cmd).json) return printJson(run);
      out(`Queued run ${run.id} again.\n`);
    });

  program
    .command('runs')
    .description('A timer’s latest runs; with --follow, each outcome as it lands (one line per run)')
    .argument('<timerId>', 'timer id', timerId)
    .option('--follow', 'keep printing outcomes as runs end (Ctrl-C stops)')
    .option('--status <list>', 'only runs in these statuses (comma list)')
    .option('--limit <n>', 'how many of the latest runs to show first', positiveInt, 20)
    .option('--interval <ms>', 'how often --follow asks, in ms', positiveInt, 1000)
    .action(
      async (
        id: string,
        opts: { follow?: boolean; status?: string; limit: number; interval: number },
        cmd: Command,
      ) => {
        const client = clientOf(cmd);
        const json = globals(cmd).json === true;
        const latest = async (limit: number) =>
          (
            await must(
              client.GET('/api/v1/timers/{id}/tasks', {
                params: {
                  path: { id },
                  query: { limit: Math.min(500, limit), ...(opts.status ? { status: opts.status } : {}) },
                },
              }),
            )
          ).items;
        const runLine = (t: Task) => {
          if (json) return `${JSON.stringify(t)}\n`;
          const paint =
            t.status === 'succeeded' ? colors.green : t.status === 'failed' ? colors.red : colors.yellow;
          const parts = [
            t.runAt,
            t.id,
            paint(t.status.padEnd(9)),
            `attempt ${t.attempts}`,
            t.httpStatus === null ? '' : `http ${t.httpStatus}`,
            t.latencyMs === null ? '' : `late ${t.latencyMs} ms`,
            t.sinceBackfillStartMs === null ? '' : `${t.sinceBackfillStartMs} ms into the backfill`,
            t.error ?? '',
          ];
          return `${parts.filter(Boolean).join('  ')}\n`;
        };
        const first = await latest(opts.limit);
        if (!opts.follow) {
          if (json) return printJson(first);
          const rows = first.map((t) => [
            t.id,
            t.runAt,
            t.status,
            t.trigger,
            String(t.attempts),
            t.httpStatus === null ? '' : String(t.httpStatus),
            t.latencyMs !== null
              ? String(t.latencyMs)
              : t.sinceBackfillStartMs === null
                ? ''
                : `+${t.sinceBackfillStartMs} backfill`,
            t.error ?? '',
          ]);
          return out(
            table(['TASK ID', 'RUN AT', 'STATUS', 'TRIGGER', 'ATTEMPTS', 'HTTP', 'LATE MS', 'ERROR'], rows),
          );
        }
        // Each run once per outcome, oldest first; a run seen before the follow began is not repeated.
        const told = new Map<string, string>();
        const tell = (runs: Task[]) => {
          for (const t of [...runs].reverse()) {
            if (!SETTLED.has(t.status) || told.get(t.id) === t.status) continue;
            told.set(t.id, t.status);
            out(runLine(t));
          }
        };
        tell(first);
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, opts.interval));
          tell(await latest(100));
        }
      },
    );
}
