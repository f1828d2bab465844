/**
 * The one entrypoint: runs the roles XTIMER_ROLES names (default all) in this process.
 * It is the composition root: config → connections → services → roles, with shutdown
 * registered in reverse order.
 */
import { startApiServer } from '../api/server.js';
import { type Config, ConfigError, loadProcessConfig, type Role } from '../src/config.js';
import { createCore } from '../src/core.js';
import { createLogger, type Logger } from '../src/observability/logger.js';
import { Shutdown } from '../src/shutdown.js';
import { openDatabase } from '../src/storage/db/client.js';
import { prepareDatabase } from '../src/storage/db/migrate.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { startExecutor } from './executor.js';
import { startMigrator } from './migrator.js';
import { startScheduler } from './scheduler.js';
import { startTrigger } from './trigger.js';

async function untilReady(what: string, logger: Logger, attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await attempt();
      return;
    } catch (err) {
      const wait = Math.min(tries * 500, 5000);
      logger.warn({ err: (err as Error).message, retryInMs: wait, tries }, `${what} is not reachable yet`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

export async function main(config: Config): Promise<Shutdown> {
  const logger = createLogger(config.logLevel);
  const shutdown = new Shutdown(logger);

  await untilReady('MySQL', logger, () => prepareDatabase(config.mysqlUrl));
  const database = openDatabase(config.mysqlUrl);
  shutdown.add('mysql', () => database.close());

  const redis = withScripts(createRedis(config.redisUrl, { connectionName: 'xtimer' }));
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  shutdown.add('redis', () => redis.quit().then(() => undefined));
  await untilReady('Redis', logger, () => redis.ping().then(() => undefined));

  const core = createCore(config, logger, database, redis);

  if (config.roles.includes('api')) {
    const api = await startApiServer(
      {
        timers: core.timers,
        callbackTimeoutMs: config.callbackTimeoutMs,
        logger: logger.child({ component: 'api' }),
        dashboard: {
          queues: core.queues,
          auth:
            config.dashboardUser && config.dashboardPassword
              ? { username: config.dashboardUser, password: config.dashboardPassword }
              : null,
        },
        readiness: {
          redis: async () => {
            await redis.ping();
          },
          mysql: async () => {
            await database.pool.query('SELECT 1');
          },
        },
      },
      config.host,
      config.port,
      logger,
    );
    shutdown.add('api', () => api.close());
  }

  const has = (role: Role) => config.roles.includes(role);
  shutdown.add('queues', () => core.queues.close());
  // Start order: what produces work last, so shutdown (reverse order) stops it first.
  if (has('executor')) shutdown.add('executor', (await startExecutor(core)).close);
  if (has('trigger')) shutdown.add('trigger', (await startTrigger(core)).close);
  if (has('migrator')) shutdown.add('migrator', (await startMigrator(core)).close);
  if (has('scheduler')) shutdown.add('scheduler', (await startScheduler(core)).close);

  logger.info({ roles: config.roles }, 'xtimer started');
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
  const shutdown = await main(config);
  // A lost connection must not take the process down (no crash loop while Redis or MySQL
  // is away): log what escaped and carry on; the roles retry on their own.
  process.on('unhandledRejection', (reason) => {
    console.error('unhandled rejection (continuing):', reason);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      shutdown.run(signal).then(() => process.exit(0));
    });
  }
}

run().catch((err) => {
  console.error('xtimer failed to start:', err);
  process.exit(1);
});
