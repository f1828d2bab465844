/**
 * The composition root of one thread: config → connections → services → its roles, with
 * shutdown registered in reverse order. The main thread runs it, and so does the roles
 * thread when the api has the main thread to itself (API_THREAD).
 */
import type { Config } from '../src/config.js';
import { type Core, createCore } from '../src/core.js';
import { untilReady } from '../src/lib/until-ready.js';
import { connectionLogs } from '../src/observability/connection-log.js';
import { createLogger } from '../src/observability/logger.js';
import type { Foreground } from '../src/services/firing/admission/foreground.js';
import { Shutdown } from '../src/shutdown.js';
import { openDatabase, watchConnections } from '../src/storage/db/client.js';
import { prepareDatabase } from '../src/storage/db/migrate.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { RedisClock } from '../src/storage/redis/redis-clock.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { startRoles } from './start-roles.js';

export async function compose(
  config: Config,
  options: { thread?: string; foreground?: Foreground | undefined } = {},
): Promise<{ core: Core; shutdown: Shutdown }> {
  const bindings = options.thread ? { thread: options.thread } : {};
  const logger = createLogger(config.logLevel, bindings, undefined, config.logFormat);
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
  const core = createCore(config, logger, database, redis, clock.now, logs, options.foreground);
  core.metrics.onScrape(async () => core.metrics.clockOffset.set(clock.offsetMs / 1000));

  await startRoles(core, shutdown);
  return { core, shutdown };
}
