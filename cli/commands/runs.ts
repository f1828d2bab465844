import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { positiveInt, timerId } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';
import { UsageError } from '../errors.js';
import { table } from '../terminal.js';

type Task = components['schemas']['Task'];
type RunDetail = components['schemas']['RunDetail'];
type AttemptAnswer = RunDetail['attempts'][number];

/** The timer id of a task id `<timerId>_<runAtMs>`. */
function timerOfTask(taskId: string): string {
  const id = /^([1-9][0-9]{0,15})_[0-9]{1,16}$/.exec(taskId)?.[1];
  if (id === undefined) throw new UsageError(`${taskId}: a task id is <timerId>_<runAtMs>`);
  return id;
}

/** The size of a body kept: what is kept, and the whole when known and larger. */
function keptBytesText(a: Pick<AttemptAnswer, 'httpStatus' | 'outputBytes' | 'bodyBytes'>): string {
  if (a.httpStatus === null) return 'none: no response';
  if (a.bodyBytes === null) return `${a.outputBytes} bytes kept (whole size unknown)`;
  if (a.bodyBytes <= a.outputBytes) return `${a.bodyBytes} bytes`;
  return `${a.outputBytes} of ${a.bodyBytes} bytes kept`;
}

function attemptLines(a: AttemptAnswer): string[] {
  return [
    `attempt ${a.attempt}  http ${a.httpStatus ?? '—'}, ${a.durationMs ?? '—'} ms, sent ${a.sentAt ?? '—'}`,
    ...(a.error ? [`  error   ${a.error}`] : []),
    ...(a.headers === null ? [] : Object.entries(a.headers).map(([name, value]) => `  ${name}: ${value}`)),
    `  body    ${keptBytesText(a)}${a.output ? `\n${a.output}` : ''}`,
  ];
}

/** A run opened, as lines: the run, the request its attempts send, each answer kept. */
function runDetailText(d: RunDetail): string {
  const { task: t, request: r, attempts } = d;
  const lines = [
    `run       ${t.id}  ${t.status}  (trigger: ${t.trigger}, attempts: ${t.attempts})`,
    `scheduled ${t.runAt}`,
    '',
    `request   ${r.method} ${r.url}`,
    ...Object.entries(r.headers).map(([name, value]) => `  ${name}: ${value}`),
    r.signed
      ? '  (signed: webhook-id, webhook-timestamp, webhook-signature per attempt)'
      : '  (not signed: the timer’s app has no record; xtimer apps create <app> makes one and its signing secret)',
    `body      ${r.bodyBytes} bytes${r.body ? `\n${r.body}` : ''}`,
    '',
  ];
  if (t.attempts === 0) return `${[...lines, 'response  not called yet'].join('\n')}\n`;
  if (d.attemptsNotKept > 0) lines.push(`(${d.attemptsNotKept} earlier attempts: answers not kept)`);
  for (const a of attempts) lines.push(...attemptLines(a));
  const last = attempts.at(-1)?.attempt ?? 0;
  if (t.status === 'running' && last < t.attempts)
    lines.push(`attempt ${t.attempts}  in flight, no answer yet`);
  return `${lines.join('\n')}\n`;
}

/** Outcomes `runs --follow` reports: a run that has ended (a retry may end it again). */
const SETTLED = new Set(['succeeded', 'failed', 'skipped', 'missed']);

/** `xtimer retry`, `xtimer inspect` and `xtimer runs`: a timer's runs, read, opened, followed and sent again. */
export function registerRunCommands(program: Command, ctx: CliContext): void {
  const { out, colors, globals, clientOf, printJson } = ctx;

  program
    .command('retry')
    .description('Send an ended run again, as its next attempt (same task id)')
    .argument('<taskId>', 'the run’s task id, <timerId>_<runAtMs>')
    .action(async (taskId: string, _opts: unknown, cmd: Command) => {
      const id = timerOfTask(taskId);
      const run = await must(
        clientOf(cmd).POST('/api/v1/timers/{id}/tasks/{taskId}/retry', { params: { path: { id, taskId } } }),
      );
      if (globals(cmd).json) return printJson(run);
      out(`Queued run ${run.id} again.\n`);
    });

  program
    .command('inspect')
    .description('One run: its trigger and outcome, the request its attempts send, each answer kept')
    .argument('<taskId>', 'the run’s task id, <timerId>_<runAtMs>')
    .action(async (taskId: string, _opts: unknown, cmd: Command) => {
      const id = timerOfTask(taskId);
      const detail = await must(
        clientOf(cmd).GET('/api/v1/timers/{id}/tasks/{taskId}', { params: { path: { id, taskId } } }),
      );
      if (globals(cmd).json) return printJson(detail);
      out(runDetailText(detail));
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
        const told = new Map<string, string>();
        const tell = (runs: Task[]) => {
          for (const t of newOutcomes(told, runs)) out(runLine(t));
        };
        tell(first);
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, opts.interval));
          tell(await latest(100));
        }
      },
    );
}

/**
 * The runs of a page (newest first) with an outcome not told yet, oldest first, noted in
 * `told`. An outcome is a settled status after so many attempts: a retried run that ends
 * failed again is told again.
 */
export function newOutcomes(told: Map<string, string>, runs: readonly Task[]): Task[] {
  const fresh: Task[] = [];
  for (const t of [...runs].reverse()) {
    const outcome = `${t.status}/${t.attempts}`;
    if (!SETTLED.has(t.status) || told.get(t.id) === outcome) continue;
    told.set(t.id, outcome);
    fresh.push(t);
  }
  return fresh;
}
