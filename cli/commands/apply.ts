import { createInterface } from 'node:readline';
import { type Command, CommanderError } from 'commander';
import type { components } from '../../client/index.js';
import { type CliContext, must } from '../cli-context.js';
import { EXIT, UsageError } from '../errors.js';
import { hasChanges, renderApplied, renderPlan } from '../plan-view.js';
import type { Terminal } from '../terminal.js';
import { readTimersFile } from '../timers-file.js';

type ApplyResult = components['schemas']['ApplyResult'];

/** `xtimer plan` and `xtimer apply`: an app's timers made what a file says (timers as code). */
export function registerApplyCommands(program: Command, ctx: CliContext): void {
  const { term, out, colors, globals, clientOf, printJson } = ctx;

  const applySet = async (
    cmd: Command,
    { app, timers }: ReturnType<typeof readTimersFile>,
    prune: boolean,
    dryRun: boolean,
    planId?: string,
  ): Promise<{ app: string; result: ApplyResult }> => {
    const result = await must(
      clientOf(cmd).POST('/api/v1/apps/{app}/apply', {
        params: { path: { app } },
        body: {
          timers: timers as components['schemas']['Apply']['timers'],
          prune,
          dryRun,
          ...(planId === undefined ? {} : { planId }),
        },
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
      const { app, result } = await applySet(cmd, readTimersFile(opts.file), opts.prune === true, true);
      if (globals(cmd).json) printJson(result);
      else out(renderPlan(app, result.plan, colors));
      if (opts.detailedExitcode && hasChanges(result.plan)) {
        throw new CommanderError(EXIT.changes, 'xtimer.changes', 'changes planned');
      }
    });

  program
    .command('apply')
    .description(
      'Make an app’s timers what the file says: shows the plan, asks, applies that plan all or nothing',
    )
    .requiredOption('-f, --file <path>', 'timers file (YAML or JSON): {app, timers: [...]}')
    .option('--prune', 'delete the app’s timers the file leaves out')
    .option('--yes', 'apply without asking (needed when stdin is not a terminal)')
    .action(async (opts: { file: string; prune?: boolean; yes?: boolean }, cmd: Command) => {
      const json = globals(cmd).json === true;
      const prune = opts.prune === true;
      const set = readTimersFile(opts.file);
      const planned = await applySet(cmd, set, prune, true);
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
      // The plan shown and confirmed, or none: a timer created meanwhile is not pruned unseen.
      const { app, result } = await applySet(cmd, set, prune, false, planned.result.planId);
      if (json) return printJson(result);
      out(renderApplied(app, result));
    });
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
