import { Command, CommanderError } from 'commander';
import { createCliContext } from './cli-context.js';
import { registerApplyCommands } from './commands/apply.js';
import { registerAppCommands } from './commands/apps.js';
import { registerAuditCommand } from './commands/audit.js';
import { registerCalendarCommands } from './commands/calendars.js';
import { registerPauseCommands } from './commands/pause.js';
import { registerPauseAllCommands } from './commands/pause-all.js';
import { registerPreviewCommand } from './commands/preview.js';
import { registerRunCommands } from './commands/runs.js';
import { registerTimerCommands } from './commands/timers.js';
import { ApiError, EXIT, UsageError } from './errors.js';
import type { Terminal } from './terminal.js';

const DEFAULT_URL = 'http://127.0.0.1:8081';

/** The `xtimer` command line over a terminal (the process's own, or a test's). */
export function createProgram(term: Terminal): Command {
  const ctx = createCliContext(term);
  const program = new Command('xtimer');
  program
    .description(
      'Manage xtimer: timers (list, change, pause and resume, backfill, follow their runs), a timers file (timers as code), apps and their calendars, the audit log, and the pause of everything in an emergency.',
    )
    .option('--url <url>', 'xtimer base URL (env XTIMER_URL)', term.env.XTIMER_URL || DEFAULT_URL)
    // The token's default (XTIMER_TOKEN) is read when used: help must not print a secret.
    .option('--token <token>', 'admin token or app API key (env XTIMER_TOKEN)')
    .option('--json', 'print JSON for scripts instead of tables')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: ctx.out, writeErr: (text) => term.stderr.write(text) });

  registerTimerCommands(program, ctx);
  registerRunCommands(program, ctx);
  registerPreviewCommand(program, ctx);
  registerPauseCommands(program, ctx);
  registerPauseAllCommands(program, ctx);
  registerApplyCommands(program, ctx);
  registerAppCommands(program, ctx);
  registerCalendarCommands(program, ctx);
  registerAuditCommand(program, ctx);
  return program;
}

/** `timers.2.cron` as a person counts: the file's timer #3. */
function readablePath(path: string): string {
  return path.replace(
    /^timers\.(\d+)(\.|$)/,
    (_, i: string, dot: string) => `timer #${Number(i) + 1}${dot ? ' ' : ''}`,
  );
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
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    term.stderr.write(`error: ${(err as Error).message}${cause?.message ? ` (${cause.message})` : ''}\n`);
    // Nothing answers there: say where the CLI looked and how to point it elsewhere.
    if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ETIMEDOUT'].includes(cause?.code ?? ''))
      term.stderr.write('Is xtimer running there? Give its address with --url or XTIMER_URL.\n');
    return EXIT.api;
  }
}
