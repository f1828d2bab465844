import type { Command } from 'commander';
import type { components } from '../../client/index.js';
import { seconds } from '../arguments.js';
import { type CliContext, must } from '../cli-context.js';
import { UsageError } from '../errors.js';
import { table } from '../terminal.js';

type App = components['schemas']['App'];
type IssuedApp = components['schemas']['IssuedApp'];

/** `xtimer apps …`: create apps, read them, set their default notification, rotate their key or secret. */
export function registerAppCommands(program: Command, ctx: CliContext): void {
  const { out, globals, clientOf, printJson } = ctx;
  const apps = program
    .command('apps')
    .description('Create apps, set their default failure notification, rotate their credentials');

  const printApp = (cmd: Command, a: App | IssuedApp): void => {
    if (globals(cmd).json) {
      printJson(a);
      return;
    }
    const rows: Array<[string, string]> = [
      ['app', a.app],
      ['key id', a.keyId],
      ['notify', a.notify ? `${a.notify.on.join(', ')} → ${a.notify.url}` : ''],
      ['previous key valid until', a.previousKeyValidUntil ?? ''],
      ['previous secret valid until', a.previousSecretValidUntil ?? ''],
      ['created', a.createdAt],
      ['updated', a.updatedAt],
    ];
    out(table(['FIELD', 'VALUE'], rows));
    const issued = a as IssuedApp;
    if (issued.apiKey !== undefined || issued.signingSecret !== undefined) {
      out('\nShown this once: keep them now.\n');
      if (issued.apiKey !== undefined) out(`API key:        ${issued.apiKey}\n`);
      if (issued.signingSecret !== undefined) out(`signing secret: ${issued.signingSecret}\n`);
    }
  };

  apps
    .command('list')
    .description('List the apps (admin)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { items } = await must(clientOf(cmd).GET('/api/v1/apps'));
      if (globals(cmd).json) return printJson(items);
      const rows = items.map((a) => [a.app, a.keyId, a.notify ? a.notify.url : '', a.createdAt]);
      out(table(['APP', 'KEY ID', 'NOTIFY', 'CREATED'], rows));
    });

  apps
    .command('get')
    .description('Show an app (admin, or the app itself)')
    .argument('<app>', 'app name')
    .action(async (app: string, _opts: unknown, cmd: Command) => {
      printApp(cmd, await must(clientOf(cmd).GET('/api/v1/apps/{app}', { params: { path: { app } } })));
    });

  apps
    .command('create')
    .description('Create an app (admin): prints its API key and signing secret, which are shown only once')
    .argument('<app>', 'app name')
    .action(async (app: string, _opts: unknown, cmd: Command) => {
      printApp(cmd, await must(clientOf(cmd).POST('/api/v1/apps', { body: { app } })));
    });

  apps
    .command('notify')
    .description(
      'Set where failed or missed runs of the app’s timers are reported, unless a timer sets its own',
    )
    .argument('<app>', 'app name')
    .argument('[url]', 'the receiver of the notices')
    .option('--on <outcomes>', 'which outcomes, comma-separated (failed, missed)', 'failed,missed')
    .option('--clear', 'report none by default')
    .action(
      async (app: string, url: string | undefined, opts: { on: string; clear?: boolean }, cmd: Command) => {
        if ((url === undefined) === (opts.clear === undefined))
          throw new UsageError('give the receiver’s URL, or --clear');
        const on = opts.on.split(',').map((o) => o.trim()) as NonNullable<App['notify']>['on'];
        const notify = url === undefined ? null : { url, on };
        printApp(
          cmd,
          await must(
            clientOf(cmd).PATCH('/api/v1/apps/{app}', {
              params: { path: { app } },
              body: { notify } as components['schemas']['UpdateApp'],
            }),
          ),
        );
      },
    );

  apps
    .command('rotate')
    .description('Issue a new API key or signing secret; the old one stays valid for a grace period')
    .argument('<app>', 'app name')
    .argument('<what>', 'key or secret')
    .option(
      '--grace <seconds>',
      'how long the old one stays valid (0: revoke it at once)',
      seconds(30 * 86_400),
    )
    .action(async (app: string, what: string, opts: { grace?: number }, cmd: Command) => {
      if (what !== 'key' && what !== 'secret') throw new UsageError(`${what}: rotate key or secret`);
      const graceSeconds = opts.grace;
      printApp(
        cmd,
        await must(
          clientOf(cmd).POST('/api/v1/apps/{app}/rotate', {
            params: { path: { app } },
            body: { rotate: what, ...(graceSeconds === undefined ? {} : { graceSeconds }) },
          }),
        ),
      );
    });
}
