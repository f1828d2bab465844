/**
 * A process that commits one timer change and dies before publishing it to Redis (as a
 * process killed right after its commit would): `node --import tsx commit-then-die.ts
 * <timerId> <patch JSON>` with the stores' settings in its environment.
 */
import { loadConfig } from '../../src/config.js';
import { createCore } from '../../src/core.js';
import { createLogger } from '../../src/observability/logger.js';
import { INTERNAL } from '../../src/services/timers/access.js';
import { openDatabase } from '../../src/storage/db/client.js';
import { createRedis } from '../../src/storage/redis/connection.js';
import { withScripts } from '../../src/storage/redis/scripts.js';

const [id, patch] = process.argv.slice(2);
const config = loadConfig(process.env);
const core = createCore(
  config,
  createLogger('silent'),
  openDatabase(config.mysqlUrl),
  withScripts(createRedis(config.redisUrl)),
);
core.publisher.publish = async () => {
  process.stdout.write('committed\n');
  process.kill(process.pid, 'SIGKILL');
};
await core.timers.definitions.update(INTERNAL, Number(id), JSON.parse(patch!));
