import type { Pool } from 'mysql2/promise';
import type { ScriptedRedis } from '../storage/redis/scripts.js';

/**
 * Whether this process can do its work, not only reach its stores (GET /readyz). Both
 * must take a write: a Redis replica left behind by a failover answers READONLY and a
 * full one OOM, and a MySQL replica or a primary a failover demoted refuses writes under
 * `read_only`; all of them still answer a ping. MySQL is asked with an UPDATE of no row,
 * which the server refuses under `read_only` unless this user may write through it.
 */
export function readinessChecks(
  redis: Pick<ScriptedRedis, 'set'>,
  pool: Pick<Pool, 'query'>,
  probeKey: string,
): Record<'redis' | 'mysql', () => Promise<void>> {
  return {
    redis: async () => {
      await redis.set(probeKey, '1', 'PX', 10_000);
    },
    mysql: async () => {
      await pool.query('UPDATE service_pause SET id = id WHERE FALSE');
    },
  };
}
