import { TargetGuard } from './callback/target-guard.js';
import type { Config } from './config.js';
import { parseNotify } from './domain/timer.js';
import { type ConnectionLogs, connectionLogs } from './observability/connection-log.js';
import { Liveness } from './observability/liveness.js';
import type { Logger } from './observability/logger.js';
import { Metrics } from './observability/metrics.js';
import { SecretBox } from './security/secret-box.js';
import { AppService } from './services/apps/app-service.js';
import { AuditService } from './services/apps/audit-service.js';
import { ServicePause } from './services/apps/service-pause.js';
import { Foreground } from './services/firing/admission/foreground.js';
import { FiringLulls } from './services/firing/release/firing-lulls.js';
import { FailureNotifier } from './services/notify/failure-notifier.js';
import { PlanPublisher } from './services/planning/plan-publisher.js';
import { RunPlanner } from './services/planning/run-planner.js';
import { RunStopper } from './services/planning/run-stopper.js';
import { TimerEvents } from './services/timers/timer-events.js';
import { TimerService } from './services/timers/timer-service.js';
import { AppRepository } from './storage/db/app-repository.js';
import type { Database } from './storage/db/client.js';
import { PlanOutboxRepository } from './storage/db/plan-outbox-repository.js';
import { TaskRepository } from './storage/db/tasks/task-repository.js';
import { TimerRepository } from './storage/db/timer-repository.js';
import { AppCopies } from './storage/redis/app-copies.js';
import { isCluster } from './storage/redis/connection.js';
import { createKeys, type Keys } from './storage/redis/keys.js';
import { createQueues, type Queues } from './storage/redis/queues.js';
import { RateLimiter } from './storage/redis/rate-limiter.js';
import { RedisLock } from './storage/redis/redis-lock.js';
import { RunClaims } from './storage/redis/runs/run-claims.js';
import { SliceForm } from './storage/redis/runs/slice-form.js';
import { SliceStore } from './storage/redis/runs/slice-store.js';
import type { ScriptedRedis } from './storage/redis/scripts.js';
import { TimerCopies } from './storage/redis/timer-copies.js';

/** The services every role shares, built over open connections. */
export interface Core {
  config: Config;
  logger: Logger;
  database: Database;
  redis: ScriptedRedis;
  keys: Keys;
  slices: SliceStore;
  planner: RunPlanner;
  /** Takes committed timer changes to Redis, and publishes again those whose publisher failed. */
  publisher: PlanPublisher;
  events: TimerEvents;
  timers: TimerService;
  /** Apps, their API keys and signing secrets; who a bearer token is. */
  apps: AppService;
  /** The audit log of changes made through the API and the dashboard. */
  audit: AuditService;
  /** The emergency brake: a pause of every app at once. */
  servicePause: ServicePause;
  /** Seals and opens the apps' signing secrets (XTIMER_SECRET_KEY). */
  secretBox: SecretBox;
  /** The SSRF guard over callback targets (CALLBACK_BLOCK_PRIVATE, CALLBACK_ALLOW_HOSTS). */
  guard: TargetGuard;
  queues: Queues;
  /** Reports runs that ended failed or missed to the timer's (or app's) notify target. */
  notifier: FailureNotifier;
  metrics: Metrics;
  /** The requests the API of this process is answering; an executor here yields to them. */
  foreground: Foreground;
  /** When this process's executor is between instants: the planner writes far runs then. */
  lulls: FiringLulls;
  /** Where every connection of the process says Redis or MySQL is away, or back. */
  connectionLogs: ConnectionLogs;
  /** The threads this process's /healthz watches beating (the roles thread, when it has one). */
  liveness: Liveness;
  now(): number;
}

export function createCore(
  config: Config,
  logger: Logger,
  database: Database,
  redis: ScriptedRedis,
  now: () => number = Date.now,
  logs: ConnectionLogs = connectionLogs(logger, config),
  foreground: Foreground = new Foreground(),
): Core {
  const keys = createKeys(config.prefix, { cluster: isCluster(redis) });
  const queues = createQueues(redis, keys);
  // A queue repeats its connection's errors: unheard, BullMQ prints each to stderr.
  for (const queue of [queues.trigger, queues.execute, queues.executeLate, queues.notify]) {
    queue.on('error', (err) => {
      if (!logs.redis.report(err)) logger.warn({ queue: queue.name, err: err.message }, 'queue error');
    });
  }
  const slices = new SliceStore(
    redis,
    keys,
    { buckets: config.buckets, maxBuckets: config.maxBuckets },
    new SliceForm(
      config.sliceMembers,
      () => queues.trigger.getWorkers(),
      logger.child({ component: 'slices' }),
    ),
  );
  const planner = new RunPlanner(slices, config.migrateStepMinutes, config.prereadMs, (jobs) =>
    queues.execute.addBulk(jobs),
  );
  const events = new TimerEvents(redis, keys);
  const claims = new RunClaims(redis, keys);
  const stopper = new RunStopper(database, claims, now);
  const appCopies = new AppCopies(redis, keys);
  const publisher = new PlanPublisher({
    outbox: new PlanOutboxRepository(database.pool),
    copies: new TimerCopies(redis, keys),
    appCopies,
    apps: new AppRepository(database.db),
    planner,
    stopper,
    announce: (id) => events.announce(id),
    timers: new TimerRepository(database.db),
    tasks: new TaskRepository(database.db, database.pool),
    stepMinutes: config.migrateStepMinutes,
    logger: logger.child({ component: 'publisher' }),
    now,
  });
  const guard = new TargetGuard(
    { blockPrivate: config.callbackBlockPrivate, allowHosts: config.callbackAllowHosts },
    { logger: logger.child({ component: 'target-guard' }) },
  );
  const audit = new AuditService(database);
  const timers = new TimerService({
    database,
    lock: new RedisLock(redis),
    keys,
    planner,
    publisher,
    stopper,
    claims,
    announce: (id) => events.announce(id),
    audit,
    now,
    historyDays: config.taskRetentionDays,
    policy: {
      maxTimersPerApp: config.maxTimersPerApp,
      minRunIntervalMs: config.minRunIntervalMs,
      guard,
      limiter:
        config.appRateLimitPerMinute > 0
          ? new RateLimiter(redis, keys, config.appRateLimitPerMinute)
          : undefined,
    },
  });
  const secretBox = new SecretBox(config.secretKey);
  const apps = new AppService({
    database,
    box: secretBox,
    adminToken: config.adminToken,
    graceSeconds: config.appKeyGraceSeconds,
    announce: (app) => events.announceApp(app),
    audit,
    guard,
    now,
  });
  const appRows = new AppRepository(database.db);
  const notifier = new FailureNotifier({
    enqueue: async (jobId, data) => {
      await queues.notify.add('notify', data, { jobId });
    },
    // With MySQL away, the copy the planners and executors keep in Redis: a failure during
    // an outage is still reported.
    appNotify: async (app) => {
      try {
        const [row] = await appRows.findMany([app]);
        return parseNotify(row?.notify ?? null);
      } catch (err) {
        const [copy] = await appCopies.get([app]);
        if (copy === undefined) throw err;
        return parseNotify(copy?.notify ?? null);
      }
    },
  });
  const servicePause = new ServicePause({ database, redis, key: keys.servicePause(), audit, now });
  const metrics = new Metrics();
  const liveness = new Liveness();
  metrics.onScrape(async () => {
    for (const { name, seconds } of liveness.silences()) metrics.threadSilence.set({ thread: name }, seconds);
  });
  return {
    config,
    logger,
    database,
    redis,
    keys,
    slices,
    planner,
    publisher,
    events,
    timers,
    apps,
    audit,
    servicePause,
    secretBox,
    guard,
    queues,
    notifier,
    metrics,
    foreground,
    lulls: new FiringLulls(now),
    connectionLogs: logs,
    liveness,
    now,
  };
}
