import { HttpCaller } from '../../callback/http-caller.js';
import type { Core } from '../../core.js';
import { ConcurrencyLimit } from '../../lib/concurrency-limit.js';
import type { Logger } from '../../observability/logger.js';
import type { Abandoned } from '../../shutdown.js';
import { AppRepository } from '../../storage/db/app-repository.js';
import { TaskRepository } from '../../storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../storage/db/timer-repository.js';
import { AppCopies } from '../../storage/redis/app-copies.js';
import type { RedisClient } from '../../storage/redis/connection.js';
import { addReplacingEnded, continuationJob } from '../../storage/redis/queues.js';
import { newLockToken } from '../../storage/redis/redis-lock.js';
import { RedisLossWatch } from '../../storage/redis/redis-loss-watch.js';
import { OutcomeStash } from '../../storage/redis/runs/outcome-stash.js';
import { OverlapSlots } from '../../storage/redis/runs/overlap-slots.js';
import { RunClaims } from '../../storage/redis/runs/run-claims.js';
import type { ScriptedRedis } from '../../storage/redis/scripts.js';
import { TimerCopies } from '../../storage/redis/timer-copies.js';
import { AppSigningCache } from '../apps/app-signing-cache.js';
import { PauseWatch } from '../apps/service-pause.js';
import { NotificationSender } from '../notify/notification-sender.js';
import { AppSlots } from './admission/app-slots.js';
import { RunBudget } from './admission/run-budget.js';
import { LeaseKeeper } from './lease-keeper.js';
import { ReleaseGate } from './release/release-gate.js';
import { type RunContinuations, RunExecutor } from './run-executor.js';
import { MissedInBulk } from './settle/missed-in-bulk.js';
import { RunAftermath } from './settle/run-aftermath.js';
import { RunRecorder } from './settle/run-recorder.js';
import { UncalledRuns } from './settle/uncalled-runs.js';
import { TimerCache } from './timer-cache.js';

/**
 * Timers completed at once (their final run settled). Thousands of timers can end
 * together (a backlog of final runs drained): each completion is a MySQL transaction, and
 * the pool's other connections stay free for the runs due now.
 */
const TIMER_COMPLETIONS_AT_ONCE = 4;

/** The executor role's own connections (its BullMQ connection is the workers'). */
export interface ExecutorConnections {
  /** Claims, copies and bloom checks, auto-pipelined. */
  fast: ScriptedRedis;
  /** Timer and app change announcements. */
  subscriber: RedisClient;
}

/** A RunExecutor with what it stands on, and the steps of its shutdown. */
export interface BuiltExecutor {
  executor: RunExecutor;
  /** Settles a job's runs past saving together, before the executor takes the rest. */
  missed: MissedInBulk;
  /** Failure notifications, sent through the callbacks' client and signing keys. */
  notifications: NotificationSender;
  /** How long MySQL has refused outcomes (0 while it takes them). */
  failingFor(): number;
  /**
   * Stops taking work (`stopFetching`: the lanes' workers), withdraws what waits for its
   * due time or its app's slot, waits for the calls in flight (each within its timeout),
   * then writes their outcomes and closes the callbacks' pools.
   */
  close(stopFetching: () => Promise<unknown>): Promise<void>;
  /** A second signal: what is abandoned, once the buffered outcomes are handed over. */
  abandon(): Promise<Abandoned>;
}

/**
 * Builds the RunExecutor of an executor role over the core's stores: timer and signing
 * caches kept fresh by announcements, the recorder, leases, release gate, slots and
 * budget, the Redis-loss watch and the service pause; and their gauges on scrape.
 */
export async function buildExecutor(
  core: Core,
  { fast, subscriber }: ExecutorConnections,
  logger: Logger,
): Promise<BuiltExecutor> {
  const { config, keys, queues } = core;
  const timers = new TimerRepository(core.database.db);
  const tasks = new TaskRepository(core.database.db, core.database.pool);
  const copies = new TimerCopies(fast, keys);
  const cache = new TimerCache(
    (ids) => timers.findByIds(ids),
    undefined,
    undefined,
    (ids) => copies.get(ids),
  );
  await core.events.listen(subscriber, (id) => cache.invalidate(id));
  // The apps' signing keys, cached like timers; a rotation is announced and dropped at once.
  const apps = new AppRepository(core.database.db);
  const signing = new AppSigningCache(
    (names) => apps.findMany(names),
    core.secretBox,
    undefined,
    undefined,
    new AppCopies(fast, keys),
  );
  await core.events.listenApps(subscriber, (app) => signing.invalidate(app));
  const recorder = new RunRecorder(
    (outcomes) => tasks.recordOutcomes(outcomes),
    logger,
    {},
    new OutcomeStash(fast, keys.outcomeStash()),
  );
  const caller = new HttpCaller(config.callbackConnections, { guard: core.guard, now: core.now });
  const gate = new ReleaseGate(core.now, core.lulls);
  const slots = new AppSlots(config.appMaxInFlight);
  const budget = new RunBudget(config.executorMaxRuns);
  const claims = new RunClaims(fast, keys);
  const leases = new LeaseKeeper(claims, core.now, undefined, logger).start();
  const lossWatch = new RedisLossWatch(fast, keys)
    .onLoss(() => {
      // Claims may be gone: MySQL must show the calls in flight before re-fanned copies
      // ask it, and the records are written again so those copies find them taken; runs
      // finished here whose outcome MySQL lacks are written back as done, and stashed again.
      recorder.flushInFlight();
      leases
        .renewAll()
        .catch((err) => logger.warn({ err: (err as Error).message }, 'lease re-assert failed'));
      claims
        .reassertFinished(recorder.finishedUnwritten())
        .then(() => recorder.restash())
        .catch((err) => logger.warn({ err: (err as Error).message }, 'outcome re-assert failed'));
    })
    .start();
  const continuations: RunContinuations = {
    async retry(run, delayMs) {
      const job = continuationJob(run, 'retry', delayMs);
      await queues.execute.add(job.name, job.data, job.opts);
    },
    async withdraw(run) {
      // Its attempt was withdrawn, so the run's next withdrawal has the same job id.
      await addReplacingEnded(queues.execute, [continuationJob(run, 'withdrawn')]);
    },
  };
  const overlap = new OverlapSlots(fast, keys);
  const pause = await new PauseWatch(fast, keys.servicePause()).start();
  const completions = new ConcurrencyLimit(TIMER_COMPLETIONS_AT_ONCE);
  const aftermath = new RunAftermath({
    completeTimer: (id, runAt) => completions.run(() => core.timers.lifecycle.complete(id, runAt)),
    countFailure: (id, failed) => timers.countFailure(id, failed),
    autoPause: async (id) => (await core.timers.lifecycle.autoPause(id))?.pausedNote ?? null,
    notifier: core.notifier,
    logger,
  });
  const notifications = new NotificationSender({ caller, signing, timeoutMs: config.callbackTimeoutMs });
  const owner = newLockToken();
  const executor = new RunExecutor({
    claims,
    leases,
    history: (runs) => tasks.states(runs),
    cache,
    recorder,
    caller,
    gate,
    slots,
    budget,
    continuations,
    overlap,
    aftermath,
    metrics: core.metrics,
    redisMayHaveLostData: () => lossWatch.suspected,
    signing,
    owner,
    paused: pause.current,
    logger,
    now: core.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });

  core.metrics.onScrape(async () => {
    const now = core.now();
    core.metrics.waitingRuns.set(gate.waiting);
    core.metrics.appSlotWaits.set(slots.waiting);
    core.metrics.bufferedOutcomes.set(recorder.buffered);
    const oldest = executor.oldestUnsentDue();
    core.metrics.oldestDueAge.set({ where: 'executor' }, oldest === null ? 0 : (now - oldest) / 1000);
  });

  const missed = new MissedInBulk({
    cache,
    uncalled: new UncalledRuns({
      tasks,
      claims,
      owner: `${owner}:bulk`,
      notifier: core.notifier,
      metrics: core.metrics,
      logger,
    }),
    metrics: core.metrics,
    paused: pause.current,
    now: core.now,
  });

  return {
    executor,
    missed,
    notifications,
    failingFor: () => recorder.failingFor(),
    async close(stopFetching) {
      lossWatch.stop();
      pause.stop();
      const closing = stopFetching();
      const withdrawn = budget.close() + gate.close() + slots.close();
      if (withdrawn > 0) logger.info({ withdrawn }, 'withdrew runs not yet sent');
      if (executor.callsInFlight > 0)
        logger.info({ calls: executor.callsInFlight }, 'waiting for the calls in flight to end');
      await closing;
      await executor.drain();
      await leases.stop();
      await recorder.stop();
      await caller.close();
    },
    async abandon() {
      return { callsInFlight: executor.callsInFlight, outcomesLost: await recorder.handOver() };
    },
  };
}
