/**
 * The one entrypoint: runs the roles XTIMER_ROLES names (default all) in this process.
 * It is the composition root: config → connections → services → roles, with shutdown
 * registered in reverse order.
 */
import { type Config, ConfigError, exposureProblem, loadProcessConfig } from '../src/config.js';
import { createCore } from '../src/core.js';
import { untilReady } from '../src/lib/until-ready.js';
import { connectionLogs } from '../src/observability/connection-log.js';
import { createLogger } from '../src/observability/logger.js';
import { Shutdown } from '../src/shutdown.js';
import { openDatabase, watchConnections } from '../src/storage/db/client.js';
import { prepareDatabase } from '../src/storage/db/migrate.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { RedisClock } from '../src/storage/redis/redis-clock.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { startRoles } from './start-roles.js';

export async function main(config: Config): Promise<Shutdown> {
  const logger = createLogger(config.logLevel, {}, undefined, config.logFormat);
  const shutdown = new Shutdown(logger, config.shutdownGraceMs);
  const logs = connectionLogs(logger, config);

  const firstHost = await untilReady(logs.mysql, () => prepareDatabase(config.mysqlUrl));
  const log = logger.child({ component: 'mysql' });
  const database = openDatabase(config.mysqlUrl, {}, { firstHost, log });
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

  await startRoles(core, shutdown);
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
