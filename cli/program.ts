import { createInterface } from 'node:readline';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { type components, createXtimerClient, type XtimerClient } from '../client/index.js';
import { ApiError, EXIT, UsageError } from './errors.js';
import { renderPauseState, renderResumed } from './pause-view.js';
import { hasChanges, renderApplied, renderPlan } from './plan-view.js';
import { colorsFor, type Terminal, table } from './terminal.js';
import { readDocument, readTimersFile } from './timers-file.js';

type Timer = components['schemas']['Timer'];
type Task = components['schemas']['Task'];
type ApplyResult = components['schemas']['ApplyResult'];

const DEFAULT_URL = 'http://127.0.0.1:8081';
/** Outcomes `runs --follow` reports: a run that has ended (a retry may end it again). */
const SETTLED = new Set(['succeeded', 'failed', 'skipped', 'missed']);

interface GlobalOptions {
  url: string;
  token?: string | undefined;
  json?: boolean | undefined;
}

/** openapi-fetch's answer: the data, or the API's error envelope. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; an error answer becomes an ApiError (exit 1) with the API's code and message. */
async function must<T>(pending: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  const envelope = (
    error as
      | { error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> } }
      | undefined
  )?.error;
  throw new ApiError(
    envelope?.code ?? `HTTP_${response.status}`,
    envelope?.message ?? response.statusText,
    response.status,
    Array.isArray(envelope?.details) ? envelope.details : [],
  );
}

const positiveInt = (value: string): number => {
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
};

const timerId = (value: string): string => {
  if (!/^[1-9][0-9]{0,14}$/.test(value))
    throw new InvalidArgumentError('expected a timer id (a positive number)');
  return value;
};

/** The schedule as the API takes it: a cron, `every 30s` (with its offset), or a one-shot's `at`. */
const scheduleOf = (t: Timer) => {
  if (t.cron) return t.cron;
  if (t.every) return `every ${t.every}${t.offset && t.offset !== '0s' ? ` offset ${t.offset}` : ''}`;
  return t.at ? `at ${t.at}` : '';
};

/** The `xtimer` command line over a terminal (the process's own, or a test's). */
export function createProgram(term: Terminal): Command {
  const out = (text: string): void => {
    term.stdout.write(text);
  };
  const colors = colorsFor(term.stdout, term.env);
  const program = new Command('xtimer');
  program
    .description(
      'Manage xtimer timers: list, change, follow their runs, apply a timers file (timers as code), and pause everything in an emergency.',
    )
    .option('--url <url>', 'xtimer base URL (env XTIMER_URL)', term.env.XTIMER_URL || DEFAULT_URL)
    // The token's default (XTIMER_TOKEN) is read when used: help must not print a secret.
    .option('--token <token>', 'admin token or app API key (env XTIMER_TOKEN)')
    .option('--json', 'print JSON for scripts instead of tables')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: out, writeErr: (text) => term.stderr.write(text) });

  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals<GlobalOptions>();
  const clientOf = (cmd: Command): XtimerClient => {
    const { url } = globals(cmd);
    const token = globals(cmd).token ?? (term.env.XTIMER_TOKEN || undefined);
    try {
      new URL(url);
    } catch {
      throw new UsageError(`--url ${JSON.stringify(url)} is not a URL`);
    }
    return createXtimerClient({ baseUrl: url, token });
  };
  const printJson = (value: unknown): void => out(`${JSON.stringify(value, null, 2)}\n`);
  const printTimer = (cmd: Command, t: Timer): void => {
    if (globals(cmd).json) {
      printJson(t);
      return;
    }
    const rows: Array<[string, string]> = [
      ['id', String(t.id)],
      ['app', t.app],
      ['name', t.name],
      ['status', t.status],
      ['schedule', scheduleOf(t)],
      ['timezone', t.timezone],
      ['callback', `${t.callback.method} ${t.callback.url}`],
      ['retry', `${t.retry.maxAttempts} attempts, backoff ${t.retry.backoffMs} ms`],
      ['misfire', t.misfirePolicy],
      [
        'labels',
        Object.entries(t.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(', '),
      ],
      ['description', t.description ?? ''],
      ['updated', t.updatedAt],
    ];
    out(table(['FIELD', 'VALUE'], rows));
  };

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
      printTimer(
        cmd,
        await must(clientOf(cmd).POST('/api/v1/timers/{id}/enable', { params: { path: { id } } })),
      );
    });

  timers
    .command('disable')
    .description('Deactivate a timer: nothing due after this fires')
    .argument('<id>', 'timer id', timerId)
    .option('--note <text>', 'why (shown on the timer and in the console)')
    .option('--until <time>', 'resume by itself at this ISO time')
    .action(async (id: string, opts: { note?: string; until?: string }, cmd: Command) => {
      const body = {
        ...(opts.note === undefined ? {} : { note: opts.note }),
        ...(opts.until === undefined ? {} : { until: opts.until }),
      };
      // The API reads this body as optional; its OpenAPI route declares none, so the typed
      // client is told it may send one.
      const init = { params: { path: { id } }, body } as { params: { path: { id: string } } };
      printTimer(cmd, await must(clientOf(cmd).POST('/api/v1/timers/{id}/disable', init)));
    });

  timers
    .command('backfill')
    .description('Run the schedule’s runs over a past range [from, to), paced; prints the backfill')
    .argument('<id>', 'timer id', timerId)
    .requiredOption('--from <time>', 'the first instant of the range (ISO time, included)')
    .requiredOption('--to <time>', 'the end of the range (ISO time, not included)')
    .option('--wait', 'print its progress until all its runs have ended')
    .action(async (id: string, opts: { from: string; to: string; wait?: boolean }, cmd: Command) => {
      const client = clientOf(cmd);
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
    });

  timers
    .command('trigger')
    .description('Run a timer now, whatever its status')
    .argument('<id>', 'timer id', timerId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const run = await must(clientOf(cmd).POST('/api/v1/timers/{id}/trigger', { params: { path: { id } } }));
      if (globals(cmd).json) return printJson(run);
      out(`Queued run ${run.id} of timer ${run.timerId} at ${run.runAt}.\n`);
    });

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
            t.latencyMs === null ? '' : String(t.latencyMs),
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

  // The emergency brake (the admin token's): one pause of every app, with a note.
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

  const applyFile = async (
    cmd: Command,
    file: string,
    prune: boolean,
    dryRun: boolean,
  ): Promise<{ app: string; result: ApplyResult }> => {
    const { app, timers } = readTimersFile(file);
    const result = await must(
      clientOf(cmd).POST('/api/v1/apps/{app}/apply', {
        params: { path: { app } },
        body: { timers: timers as components['schemas']['Apply']['timers'], prune, dryRun },
      }),
    );
    return { app, result };
  };

  program
    .command('plan')
    .description('Show what `apply` would change, as a diff; changes nothing')
    .requiredOption('-f, --file <path>', 'timers file (YAML or JSON): {app, timers: [...]}')
    .option('--prune', 'also show the deletions of timers the file leaves out')
    .option('--detailed-exitcode', 'exit 3 when there are changes, 0 when there are none (for CI)')
    .action(async (opts: { file: string; prune?: boolean; detailedExitcode?: boolean }, cmd: Command) => {
      const { app, result } = await applyFile(cmd, opts.file, opts.prune === true, true);
      if (globals(cmd).json) printJson(result);
      else out(renderPlan(app, result.plan, colors));
      if (opts.detailedExitcode && hasChanges(result.plan)) {
        throw new CommanderError(EXIT.changes, 'xtimer.changes', 'changes planned');
      }
    });

  program
    .command('apply')
    .description('Make an app’s timers what the file says: shows the plan, asks, applies it all or nothing')
    .requiredOption('-f, --file <path>', 'timers file (YAML or JSON): {app, timers: [...]}')
    .option('--prune', 'delete the app’s timers the file leaves out')
    .option('--yes', 'apply without asking (needed when stdin is not a terminal)')
    .action(async (opts: { file: string; prune?: boolean; yes?: boolean }, cmd: Command) => {
      const json = globals(cmd).json === true;
      const prune = opts.prune === true;
      const planned = await applyFile(cmd, opts.file, prune, true);
      if (!json) out(renderPlan(planned.app, planned.result.plan, colors));
      if (hasChanges(planned.result.plan) && opts.yes !== true) {
        if (term.stdin.isTTY !== true) {
          throw new UsageError(
            'not applied: stdin is not a terminal to ask on; add --yes to apply without asking',
          );
        }
        if (!(await confirm(term, `Apply these changes to app ${planned.app}? Only "yes" applies: `))) {
          out('Not applied.\n');
          throw new CommanderError(EXIT.api, 'xtimer.declined', 'not applied');
        }
      }
      const { app, result } = await applyFile(cmd, opts.file, prune, false);
      if (json) return printJson(result);
      out(renderApplied(app, result));
    });

  return program;
}

/** `timers.2.cron` as a person counts: the file's timer #3. */
function readablePath(path: string): string {
  return path.replace(
    /^timers\.(\d+)(\.|$)/,
    (_, i: string, dot: string) => `timer #${Number(i) + 1}${dot ? ' ' : ''}`,
  );
}

async function confirm(term: Terminal, question: string): Promise<boolean> {
  const rl = createInterface({ input: term.stdin, output: term.stdout as NodeJS.WritableStream });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(question, resolve));
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: readonly string[], term: Terminal): Promise<number> {
  const program = createProgram(term);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'xtimer.declined') return EXIT.api;
      if (err.code === 'xtimer.changes') return EXIT.changes;
      // Help asked for exits 0; commander has printed its message for anything else.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof UsageError) {
      term.stderr.write(`error: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof ApiError) {
      term.stderr.write(`error: ${err.code}: ${readablePath(err.message)}\n`);
      // Every problem, not just the first; a timer of a file by its place in it, counted from 1.
      for (const d of err.details.slice(err.details.length > 1 ? 0 : 1)) {
        term.stderr.write(`  ${readablePath(d.path)}: ${d.message}\n`);
      }
      // A script reading --json gets the error as JSON on stdout too.
      if (argv.includes('--json')) {
        const { code, message, details } = err;
        term.stdout.write(`${JSON.stringify({ error: { code, message, details } }, null, 2)}\n`);
      }
      return EXIT.api;
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    term.stderr.write(`error: ${(err as Error).message}${cause ? ` (${cause})` : ''}\n`);
    return EXIT.api;
  }
}
