/**
 * The one entrypoint: runs the roles XTIMER_ROLES names (default all) in this process,
 * the api on the main thread and the others in a thread of their own (API_THREAD).
 */
import { type Config, ConfigError, exposureProblem, loadProcessConfig, threadsOf } from '../src/config.js';
import { Foreground, OWN_THREAD_PATIENCE_MS } from '../src/services/firing/admission/foreground.js';
import type { Shutdown } from '../src/shutdown.js';

async function main(config: Config): Promise<Shutdown> {
  // Loaded only once the settings are valid, so a bad one is reported before the whole
  // application is loaded (a second under node, several under tsx).
  const [{ compose }, { startRolesThread }] = await Promise.all([
    import('./compose.js'),
    import('./start-roles-thread.js'),
  ]);
  const threads = threadsOf(config);
  // Its executor in the other thread yields to the api only once a request has waited.
  const foreground = threads.thread ? new Foreground({ patienceMs: OWN_THREAD_PATIENCE_MS }) : undefined;
  const { core, shutdown } = await compose(threads.main, { foreground });
  if (threads.thread !== null) {
    // Registered last, so it stops first: the api answers until the other roles are done.
    const thread = await startRolesThread(threads.thread, core);
    shutdown.addThread('roles thread', thread.close, thread.abandon);
  }
  core.logger.info({ roles: config.roles, inThread: threads.thread?.roles ?? [] }, 'xtimer started');
  return shutdown;
}

async function run(): Promise<void> {
  let config: Config;
  try {
    config = loadProcessConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const exposure = exposureProblem(config);
  if (exposure !== null) {
    console.error(exposure);
    process.exit(1);
  }
  const shutdown = await main(config);
  // A lost connection must not take the process down (no crash loop while Redis or MySQL
  // is away): log what escaped and carry on; the roles retry on their own.
  process.on('unhandledRejection', (reason) => {
    console.error('unhandled rejection (continuing):', reason);
  });
  // The first signal stops the process gracefully; a second one cuts the wait short.
  let signals = 0;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (++signals === 1) shutdown.run(signal).then(() => process.exit(0));
      else shutdown.abandon(signal).finally(() => process.exit(1));
    });
  }
}

run().catch((err) => {
  console.error('xtimer failed to start:', err);
  process.exit(1);
});
