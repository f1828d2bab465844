import type { Config } from './config.js';
import type { Logger } from './observability/logger.js';
import { RunPlanner } from './services/run-planner.js';
import { TimerEvents } from './services/timer-events.js';
import { TimerService } from './services/timer-service.js';
import type { Database } from './storage/db/client.js';
import { createKeys, type Keys } from './storage/redis/keys.js';
import { createQueues, type Queues } from './storage/redis/queues.js';
import { RedisLock } from './storage/redis/redis-lock.js';
import type { ScriptedRedis } from './storage/redis/scripts.js';
import { SliceStore } from './storage/redis/slice-store.js';

/** The services every role shares, built over open connections. */
export interface Core {
  config: Config;
  logger: Logger;
  database: Database;
  redis: ScriptedRedis;
  keys: Keys;
  slices: SliceStore;
  planner: RunPlanner;
  events: TimerEvents;
  timers: TimerService;
  queues: Queues;
  now(): number;
}

export function createCore(
  config: Config,
  logger: Logger,
  database: Database,
  redis: ScriptedRedis,
  now: () => number = Date.now,
): Core {
  const keys = createKeys(config.prefix);
  const queues = createQueues(redis, keys);
  const slices = new SliceStore(redis, keys, { buckets: config.buckets, maxBuckets: config.maxBuckets });
  const planner = new RunPlanner(slices, config.migrateStepMinutes, config.prereadMs, (jobs) =>
    queues.execute.addBulk(jobs),
  );
  const events = new TimerEvents(redis, keys);
  const timers = new TimerService({
    database,
    lock: new RedisLock(redis),
    keys,
    planner,
    announce: (id) => events.announce(id),
    now,
  });
  return { config, logger, database, redis, keys, slices, planner, events, timers, queues, now };
}
