/**
 * The one entrypoint: runs the roles XTIMER_ROLES names (default all) in this process.
 * It is the composition root: config → connections → services → roles, with shutdown
 * registered in reverse order.
 */
import { createApp } from '../api/app.js';
import { listen, metricsOnlyApp } from '../api/server.js';
import { createDashboard, DASHBOARD_PATH } from '../dashboard/dashboard.js';
import {
  type Config,
  ConfigError,
  exposureProblem,
  isLoopbackHost,
  loadProcessConfig,
  type Role,
} from '../src/config.js';
import { type Core, createCore } from '../src/core.js';
import { type ConnectionLog, connectionLogs } from '../src/observability/connection-log.js';
import { createLogger } from '../src/observability/logger.js';
import { Shutdown } from '../src/shutdown.js';
import { openDatabase, watchConnections } from '../src/storage/db/client.js';
import { prepareDatabase } from '../src/storage/db/migrate.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { runsOf } from '../src/storage/redis/queues.js';
import { RedisClock } from '../src/storage/redis/redis-clock.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { startExecutor } from './executor.js';
import { startMigrator } from './migrator.js';
import { startScheduler } from './scheduler.js';
import { startTrigger } from './trigger.js';

/** Waits for a store at start-up; its log says how it fails (any error: it is not usable yet). */
async function untilReady(log: ConnectionLog, attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await attempt();
      log.reachable();
      return;
    } catch (err) {
      log.lost(err);
      await new Promise((r) => setTimeout(r, Math.min(tries * 500, 5000)));
    }
  }
}

export async function main(config: Config): Promise<Shutdown> {
  const logger = createLogger(config.logLevel, {}, undefined, config.logFormat);
  const shutdown = new Shutdown(logger, config.shutdownGraceMs);
  const logs = connectionLogs(logger, config);

  await untilReady(logs.mysql, () => prepareDatabase(config.mysqlUrl));
  const database = openDatabase(config.mysqlUrl);
  watchConnections(database, logs.mysql);
  shutdown.add('mysql', () => database.close());

  const redis = withScripts(createRedis(config.redisUrl, { connectionName: 'xtimer' }));
  logs.redis.watch(redis);
  shutdown.add('redis', () => redis.quit().then(() => undefined));
  await untilReady(logs.redis, () => redis.ping().then(() => undefined));

  // Runs are due by Redis's clock, the one every process shares: a node whose clock runs
  // ahead must not release them early.
  const clock = await new RedisClock(redis).start();
  shutdown.add('clock', () => clock.stop());
  if (Math.abs(clock.offsetMs) > 250)
    logger.warn(
      { offsetMs: clock.offsetMs },
      "this machine's clock differs from Redis's; runs go by Redis's",
    );
  const core = createCore(config, logger, database, redis, clock.now, logs);
  core.metrics.onScrape(async () => core.metrics.clockOffset.set(clock.offsetMs / 1000));

  if (config.roles.includes('api')) {
    if (config.adminToken === undefined) {
      logger.warn(
        { host: config.host, insecure: !isLoopbackHost(config.host) },
        isLoopbackHost(config.host)
          ? 'the API is open: no XTIMER_ADMIN_TOKEN is set (only this machine can reach it)'
          : 'the API is open to the network: no XTIMER_ADMIN_TOKEN is set and XTIMER_INSECURE=1 allows it',
      );
    }
    const apiLogger = logger.child({ component: 'api' });
    // Served by the api app under /dashboard, after its browser headers and open-mode guard.
    const dashboard = createDashboard({
      timers: core.timers,
      audit: core.audit,
      servicePause: core.servicePause,
      callbackTimeoutMs: config.callbackTimeoutMs,
      queues: core.queues,
      auth:
        config.dashboardUser && config.dashboardPassword
          ? { username: config.dashboardUser, password: config.dashboardPassword }
          : null,
      isAdminToken: core.apps.adminTokenCheck,
      logger: apiLogger,
    });
    const app = createApp({
      timers: core.timers,
      apps: core.apps,
      audit: core.audit,
      servicePause: core.servicePause,
      callbackTimeoutMs: config.callbackTimeoutMs,
      logger: apiLogger,
      dashboard: { path: DASHBOARD_PATH, app: dashboard },
      readiness: {
        redis: async () => {
          await redis.ping();
        },
        mysql: async () => {
          await database.pool.query('SELECT 1');
        },
      },
      metrics: core.metrics,
      publicHosts: config.publicHosts,
      foreground: core.foreground,
    });
    const api = await listen(app, config.host, config.port, logger);
    shutdown.add('api', () => api.close());
    collectClusterGauges(core);
  } else if (config.metricsPort !== undefined) {
    const server = await listen(
      metricsOnlyApp(core.metrics),
      config.host,
      config.metricsPort,
      logger,
      'metrics',
    );
    shutdown.add('metrics', () => server.close());
  }

  const has = (role: Role) => config.roles.includes(role);
  shutdown.add('queues', () => core.queues.close());
  // Start order: what produces work last, so shutdown (reverse order) stops it first.
  if (has('executor')) {
    const executor = await startExecutor(core);
    shutdown.add('executor', executor.close, executor.abandon);
  }
  if (has('trigger')) shutdown.add('trigger', (await startTrigger(core)).close);
  if (has('migrator')) shutdown.add('migrator', (await startMigrator(core)).close);
  if (has('scheduler')) shutdown.add('scheduler', (await startScheduler(core)).close);

  logger.info({ roles: config.roles }, 'xtimer started');
  return shutdown;
}

/** Gauges read from the shared stores when scraped: active timers (at most every 10 s) and queue depths. */
function collectClusterGauges(core: Core): void {
  let activeReadAt = 0;
  core.metrics.onScrape(async () => {
    if (Date.now() - activeReadAt < 10_000) return;
    activeReadAt = Date.now();
    core.metrics.activeTimers.set(await core.timers.countActive());
  });
  core.metrics.onScrape(async () => {
    const { trigger, execute, executeLate } = core.queues;
    for (const queue of [trigger, execute, executeLate]) {
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'completed');
      for (const [state, n] of Object.entries(counts))
        core.metrics.queueDepth.set({ queue: queue.name, state }, n);
    }
    // Overload shows first as runs waiting in the execute lanes for an executor to fetch them.
    let due = Date.now();
    for (const lane of [execute, executeLate]) {
      const [oldest] = await lane.getJobs(['wait'], 0, 0, true);
      if (oldest) due = Math.min(due, ...runsOf(oldest.data).map((r) => r.runAt));
    }
    core.metrics.oldestDueAge.set({ where: 'queue' }, Math.max(0, Date.now() - due) / 1000);
  });
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
