import type { Core } from '../src/core.js';
import type { RoleName } from '../src/setting-specs.js';
import type { Shutdown } from '../src/shutdown.js';
import { startApi, startMetricsOnly } from './api.js';
import { startExecutor } from './executor.js';
import { startMigrator } from './migrator.js';
import { startScheduler } from './scheduler.js';
import { startTrigger } from './trigger.js';

/** Starts the roles XTIMER_ROLES names, each one's shutdown registered as it starts. */
export async function startRoles(core: Core, shutdown: Shutdown): Promise<void> {
  const { config } = core;
  const has = (role: RoleName) => config.roles.includes(role);
  if (has('api')) shutdown.add('api', (await startApi(core)).close);
  else if (config.metricsPort !== undefined)
    shutdown.add('metrics', (await startMetricsOnly(core, config.metricsPort)).close);

  shutdown.add('queues', () => core.queues.close());
  // Start order: what produces work last, so shutdown (reverse order) stops it first.
  if (has('executor')) {
    const executor = await startExecutor(core);
    shutdown.add('executor', executor.close, executor.abandon);
  }
  if (has('trigger')) shutdown.add('trigger', (await startTrigger(core)).close);
  if (has('migrator')) shutdown.add('migrator', (await startMigrator(core)).close);
  if (has('scheduler')) shutdown.add('scheduler', (await startScheduler(core)).close);
}
