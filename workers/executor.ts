import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Job, WaitingError, Worker } from 'bullmq';
import { HttpCaller } from '../src/callback/http-caller.js';
import type { Core } from '../src/core.js';
import { ConcurrencyLimit } from '../src/lib/concurrency-limit.js';
import { AppSigningCache } from '../src/services/apps/app-signing-cache.js';
import { PauseWatch } from '../src/services/apps/service-pause.js';
import { ApiFirst } from '../src/services/firing/admission/api-first.js';
import { AppSlots } from '../src/services/firing/admission/app-slots.js';
import {
  CATCH_UP_LOOK_EVERY_MS,
  CATCH_UP_MAX_LAG_MS,
  CatchUpThrottle,
} from '../src/services/firing/admission/catch-up-throttle.js';
import { belongsInCatchUpLane } from '../src/services/firing/admission/execute-lanes.js';
import { IntakeLimit } from '../src/services/firing/admission/intake-limit.js';
import { OutageBrake } from '../src/services/firing/admission/outage-brake.js';
import { RunBudget } from '../src/services/firing/admission/run-budget.js';
import { type BatchReport, ExecuteJobProcessor } from '../src/services/firing/execute-job-processor.js';
import { LeaseKeeper } from '../src/services/firing/lease-keeper.js';
import { ReleaseGate } from '../src/services/firing/release/release-gate.js';
import { type RunContinuations, RunExecutor, type RunReport } from '../src/services/firing/run-executor.js';
import { RunAftermath } from '../src/services/firing/settle/run-aftermath.js';
import { RunRecorder } from '../src/services/firing/settle/run-recorder.js';
import { TimerCache } from '../src/services/firing/timer-cache.js';
import { NotificationSender } from '../src/services/notify/notification-sender.js';
import { AppRepository } from '../src/storage/db/app-repository.js';
import { TaskRepository } from '../src/storage/db/task-repository.js';
import { TimerRepository } from '../src/storage/db/timer-repository.js';
import { AppCopies } from '../src/storage/redis/app-copies.js';
import { createRedis } from '../src/storage/redis/connection.js';
import {
  addReplacingEnded,
  continuationJob,
  EXECUTE_LATE_QUEUE,
  EXECUTE_QUEUE,
  type ExecuteJobData,
  KEEP_COMPLETED,
  KEEP_FAILED,
  runCountOf,
} from '../src/storage/redis/queues.js';
import { newLockToken } from '../src/storage/redis/redis-lock.js';
import { RedisLossWatch } from '../src/storage/redis/redis-loss-watch.js';
import { OutcomeStash } from '../src/storage/redis/runs/outcome-stash.js';
import { OverlapSlots } from '../src/storage/redis/runs/overlap-slots.js';
import { RunClaims } from '../src/storage/redis/runs/run-claims.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { TimerCopies } from '../src/storage/redis/timer-copies.js';
import { startNotifier } from './notifier.js';
import type { Role } from './role.js';

/** What a job fetched from `execute` too late reports: it went on to the catch-up lane. */
interface HandedOn {
  handedOnTo: string;
}

/**
 * Runs of the catch-up lane (`execute-late`) an executor holds at most: ~125 ms of work at
 * this box's ~4,000 calls a second, so a run due now waits behind no more than that.
 */
const LATE_LANE_MAX_RUNS = 500;
/**
 * Timers completed at once (their final run settled). Thousands of timers can end
 * together (a backlog of final runs drained): each completion is a MySQL transaction, and
 * the pool's other connections stay free for the runs due now.
 */
const TIMER_COMPLETIONS_AT_ONCE = 4;

/**
 * The executor role: BullMQ workers on the execute lanes (`execute`, and beside it the
 * catch-up lane `execute-late`: belongsInCatchUpLane, CatchUpThrottle), wired to a
 * RunExecutor. Queue concurrency stands in for the original's goroutine pool: a slot
 * holds one job (a run or a batch of runs) from the claim, through the wait for the due
 * millisecond, to the outcome; runs waiting for their app's slot or backing off before a
 * retry hold none.
 */
export async function startExecutor(core: Core): Promise<Role> {
  const { config, keys, queues } = core;
  const logger = core.logger.child({ component: 'executor' });
  // Claims and bloom checks of runs arriving together go out in one pipeline (on one
  // Redis: a cluster's connections are never auto-pipelined, see createRedis).
  const fast = withScripts(
    createRedis(config.redisUrl, { enableAutoPipelining: true, connectionName: 'xtimer-executor' }),
  );
  const subscriber = createRedis(config.redisUrl, { connectionName: 'xtimer-executor-events' });
  const bullConnection = createRedis(config.redisUrl, { connectionName: 'xtimer-executor-bull' });
  for (const c of [fast, subscriber, bullConnection]) core.connectionLogs.redis.watch(c);

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
  const gate = new ReleaseGate(core.now);
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
    async handBack(run) {
      // Its attempt was undone, so the next hand-back of this run has the same job id.
      await addReplacingEnded(queues.execute, [continuationJob(run, 'handback')]);
    },
  };
  const overlap = new OverlapSlots(fast, keys);
  const pause = await new PauseWatch(fast, keys.servicePause()).start();
  const completions = new ConcurrencyLimit(TIMER_COMPLETIONS_AT_ONCE);
  const aftermath = new RunAftermath({
    completeTimer: (id) => completions.run(() => core.timers.complete(id)),
    countFailure: (id, failed) => timers.countFailure(id, failed),
    autoPause: async (id) => (await core.timers.autoPause(id))?.pausedNote ?? null,
    notifier: core.notifier,
    logger,
  });
  const notifier = startNotifier(
    core,
    new NotificationSender({ caller, signing, timeoutMs: config.callbackTimeoutMs }),
    bullConnection,
  );
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
    owner: newLockToken(),
    paused: pause.current,
    logger,
    now: core.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  const processor = new ExecuteJobProcessor(executor);

  core.metrics.onScrape(async () => {
    const now = core.now();
    core.metrics.waitingRuns.set(gate.waiting);
    core.metrics.appSlotWaits.set(slots.waiting);
    core.metrics.bufferedOutcomes.set(recorder.buffered);
    const oldest = executor.oldestUnsentDue();
    core.metrics.oldestDueAge.set({ where: 'executor' }, oldest === null ? 0 : (now - oldest) / 1000);
  });

  const processJob = async (job: Job<ExecuteJobData>, token?: string): Promise<RunReport | BatchReport> => {
    const result = await processor.process(job.data);
    if (result.kind === 'done') return result.report;
    await job.moveToWait(token);
    throw new WaitingError();
  };
  // A BullMQ worker fetches its jobs one at a time (one round trip each): several workers
  // in one process fetch in parallel, so thousands of runs a second reach the wheel in time.
  // How many jobs each may hold follows the runs this process can still take on.
  const perWorker = Math.ceil(config.executorConcurrency / config.executorWorkers);
  const logged = new WeakSet<Error>();
  const logJobFailure = (job: Job<ExecuteJobData>, attempt: number, err: Error) => {
    logged.add(err);
    const retried = attempt < (job.opts.attempts ?? 1);
    logger[retried ? 'warn' : 'error'](
      { job: job.name, attempt, err },
      retried ? 'execute job failed; it is tried again' : 'execute job failed',
    );
  };
  const laneWorkers = (queue: string, count: number, maxRuns: number) => {
    const intake = new IntakeLimit(maxRuns, perWorker, count);
    const workers = Array.from(
      { length: count },
      (_, i) =>
        new Worker<ExecuteJobData, RunReport | BatchReport | HandedOn>(
          queue,
          async (job, token) => {
            try {
              if (queue === EXECUTE_QUEUE && belongsInCatchUpLane(job.data, core.now())) {
                // Same name, data and id: the run is queued once, in the lane behind.
                await core.queues.executeLate.add(job.name, job.data, job.id ? { jobId: job.id } : {});
                return { handedOnTo: EXECUTE_LATE_QUEUE };
              }
              return await processJob(job, token);
            } catch (err) {
              // Said here: BullMQ emits no 'failed' when the job's lock lapsed meanwhile.
              // While it runs, attemptsMade counts the attempts before this one.
              if (!(err instanceof WaitingError)) logJobFailure(job, job.attemptsMade + 1, err as Error);
              throw err;
            } finally {
              intake.done(i, runCountOf(job.data));
            }
          },
          {
            connection: bullConnection,
            prefix: keys.bullPrefix(queue),
            concurrency: 1,
            // A dead executor's jobs come back within ~15 s (stalled check); their runs' leases
            // have lapsed by then, so the next executor claims them as the next attempt.
            lockDuration: 15_000,
            stalledInterval: 5_000,
            maxStalledCount: 10,
            // One stalled-job check per queue and process is enough: it scans every active job.
            skipStalledCheck: i > 0,
            removeOnComplete: KEEP_COMPLETED,
            removeOnFail: KEEP_FAILED,
          },
        ),
    );
    workers.forEach((worker, i) => {
      worker.on('active', (job) => intake.fetched(i, runCountOf(job.data)));
    });
    intake.attach(workers);
    return workers;
  };
  // The catch-up lane holds few runs here at a time: the runs due now, fetched from
  // `execute`, never wait behind more than a fraction of a second of its backlog.
  const lateWorkers = laneWorkers(
    EXECUTE_LATE_QUEUE,
    Math.max(1, Math.floor(config.executorWorkers / 2)),
    Math.min(config.executorMaxRuns, LATE_LANE_MAX_RUNS),
  );
  const workers = [
    ...laneWorkers(EXECUTE_QUEUE, config.executorWorkers, config.executorMaxRuns),
    ...lateWorkers,
  ];
  // ...and only with the time the runs due now leave. Which lanes fetch follows three
  // looks: the outage brake stops both, the API's requests stop both while the loop is
  // behind, the catch-up throttle stops the late one.
  const onTimeWorkers = workers.slice(0, workers.length - lateWorkers.length);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  let lagMs = 0;
  const apiFirst = new ApiFirst(CATCH_UP_MAX_LAG_MS);
  const fetching = { onTime: true, late: true };
  const applyFetching = () => {
    const onTime = !brake.engaged && !apiFirst.yielding;
    const late = onTime && !catchUp.isPaused;
    const fetch = (lane: Worker[], on: boolean) => {
      for (const w of lane) on ? w.resume() : void w.pause(true);
    };
    if (onTime !== fetching.onTime) fetch(onTimeWorkers, onTime);
    if (late !== fetching.late) fetch(lateWorkers, late);
    fetching.onTime = onTime;
    fetching.late = late;
  };
  const brake = new OutageBrake({
    failingFor: () => recorder.failingFor(),
    pause: applyFetching,
    resume: applyFetching,
    logger,
  });
  const catchUp = new CatchUpThrottle({
    lagSinceLastLook: () => lagMs,
    pause: applyFetching,
    resume: applyFetching,
  });
  const catchUpLooks = setInterval(() => {
    lagMs = loopDelay.max / 1e6;
    loopDelay.reset();
    apiFirst.look(lagMs, core.foreground.busySinceLastLook());
    catchUp.look();
    brake.look();
    applyFetching();
  }, CATCH_UP_LOOK_EVERY_MS);
  for (const worker of workers) {
    worker.on('error', (err) => {
      if (!core.connectionLogs.redis.report(err)) logger.warn({ err: err.message }, 'execute worker error');
    });
    // Failures the processor did not throw (a job that stalled too often).
    worker.on('failed', (job, err) => {
      if (job && !(err instanceof WaitingError) && !logged.has(err))
        logJobFailure(job, job.attemptsMade, err);
    });
  }
  logger.info(
    {
      concurrency: config.executorConcurrency,
      workers: config.executorWorkers,
      maxRuns: config.executorMaxRuns,
      appMaxInFlight: config.appMaxInFlight,
    },
    'executor started',
  );

  return {
    async abandon() {
      return { callsInFlight: executor.callsInFlight, outcomesLost: await recorder.handOver() };
    },
    async close() {
      // Stop fetching first, then hand back what waits for its due time or its app's slot;
      // calls in flight finish (each within its timeout), then their outcomes are written.
      lossWatch.stop();
      pause.stop();
      clearInterval(catchUpLooks);
      loopDelay.disable();
      const closing = Promise.all([...workers.map((w) => w.close()), notifier.close()]);
      const withdrawn = budget.close() + gate.close() + slots.close();
      if (withdrawn > 0) logger.info({ withdrawn }, 'handed back runs not yet sent');
      if (executor.callsInFlight > 0)
        logger.info({ calls: executor.callsInFlight }, 'waiting for the calls in flight to end');
      await closing;
      await executor.drain();
      await leases.stop();
      await recorder.stop();
      await caller.close();
      await Promise.all(
        [fast.quit(), subscriber.quit(), bullConnection.quit()].map((p) => p.catch(() => undefined)),
      );
    },
  };
}
