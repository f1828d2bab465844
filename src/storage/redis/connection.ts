import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * A Redis connection. BullMQ needs `maxRetriesPerRequest: null` on the connections it
 * is given (it blocks on some), so every connection is made that way: commands wait
 * through a reconnect instead of failing after 20 tries.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    // Back off to at most 2 s between reconnects; never give up.
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...options,
  });
}
