import { type Job, WaitingError, Worker } from 'bullmq';
import { HttpCaller } from '../src/callback/http-caller.js';
import type { Core } from '../src/core.js';
import { taskKey } from '../src/domain/task-key.js';
import { AppSigningCache } from '../src/services/app-signing-cache.js';
import { ReleaseGate } from '../src/services/release-gate.js';
import { RunExecutor, type RunReport } from '../src/services/run-executor.js';
import { RunRecorder } from '../src/services/run-recorder.js';
import { TimerCache } from '../src/services/timer-cache.js';
import { AppRepository } from '../src/storage/db/app-repository.js';
import { TaskRepository } from '../src/storage/db/task-repository.js';
import { TimerRepository } from '../src/storage/db/timer-repository.js';
import { createRedis } from '../src/storage/redis/connection.js';
import {
  EXECUTE_QUEUE,
  type ExecuteJobData,
  isRunBatch,
  KEEP_COMPLETED,
  KEEP_FAILED,
  runsOf,
} from '../src/storage/redis/queues.js';
import { newLockToken } from '../src/storage/redis/redis-lock.js';
import { RedisLossWatch } from '../src/storage/redis/redis-loss-watch.js';
import { RunClaims } from '../src/storage/redis/run-claims.js';
import { withScripts } from '../src/storage/redis/scripts.js';

export interface Role {
  close(): Promise<void>;
}

/** What a batch job reports: how many runs ended how, and the task keys of those that did not succeed. */
export interface BatchReport {
  verdicts: Partial<Record<RunReport['verdict'], number>>;
  notSucceeded: Record<string, RunReport['verdict']>;
}

/**
 * The executor role: a BullMQ worker on `execute`. Queue concurrency stands in for
 * the original's goroutine pool: each slot holds one job (a run or a batch of runs)
 * from its claim, through the wait for its due millisecond, to its recorded outcome.
 */
export async function startExecutor(core: Core): Promise<Role> {
  const { config, keys } = core;
  const logger = core.logger.child({ component: 'executor' });
  // Claims and bloom checks of runs arriving together go out in one pipeline.
  const fast = withScripts(
    createRedis(config.redisUrl, { enableAutoPipelining: true, connectionName: 'xtimer-executor' }),
  );
  const subscriber = createRedis(config.redisUrl, { connectionName: 'xtimer-executor-events' });
  const bullConnection = createRedis(config.redisUrl, { connectionName: 'xtimer-executor-bull' });
  for (const c of [fast, subscriber, bullConnection])
    c.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));

  const timers = new TimerRepository(core.database.db);
  const tasks = new TaskRepository(core.database.db, core.database.pool);
  const cache = new TimerCache((ids) => timers.findByIds(ids));
  await core.events.listen(subscriber, (id) => cache.invalidate(id));
  // The apps' signing keys, cached like timers; a rotation is announced and dropped at once.
  const apps = new AppRepository(core.database.db);
  const signing = new AppSigningCache((names) => apps.findMany(names), core.secretBox);
  await core.events.listenApps(subscriber, (app) => signing.invalidate(app));
  const recorder = new RunRecorder((outcomes) => tasks.recordOutcomes(outcomes), logger);
  const caller = new HttpCaller(config.callbackConnections, { guard: core.guard });
  const gate = new ReleaseGate();
  const lossWatch = new RedisLossWatch(fast, keys).start();
  const executor = new RunExecutor({
    claims: new RunClaims(fast, keys),
    tasks,
    cache,
    recorder,
    caller,
    gate,
    metrics: core.metrics,
    redisMayHaveLostData: () => lossWatch.suspected,
    signing,
    owner: newLockToken(),
    logger,
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });

  core.metrics.onScrape(async () => {
    core.metrics.waitingRuns.set(gate.waiting);
    core.metrics.bufferedOutcomes.set(recorder.buffered);
  });

  const processJob = async (job: Job<ExecuteJobData>, token?: string): Promise<RunReport | BatchReport> => {
    const runs = runsOf(job.data);
    const settled = await Promise.allSettled(runs.map((run) => executor.execute(run)));
    const reports = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (reports.some((r) => r.verdict === 'withdrawn')) {
      // Shutting down before its due time: straight back to wait for another executor
      // (the runs of a batch that went out already are then found done by their claims).
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const failure = settled.find((s) => s.status === 'rejected');
    // Left pending in MySQL, such a run is queued again by the compensator.
    if (failure) throw (failure as PromiseRejectedResult).reason;
    if (!isRunBatch(job.data)) return reports[0]!;
    const batch: BatchReport = { verdicts: {}, notSucceeded: {} };
    reports.forEach((r, i) => {
      batch.verdicts[r.verdict] = (batch.verdicts[r.verdict] ?? 0) + 1;
      if (r.verdict !== 'succeeded')
        batch.notSucceeded[taskKey(runs[i]!.timerId, runs[i]!.runAt)] = r.verdict;
    });
    return batch;
  };
  // A BullMQ worker fetches its jobs one at a time (one round trip each): several workers
  // in one process fetch in parallel, so thousands of runs a second reach the wheel in time.
  const workers = Array.from(
    { length: config.executorWorkers },
    (_, i) =>
      new Worker<ExecuteJobData, RunReport | BatchReport>(EXECUTE_QUEUE, processJob, {
        connection: bullConnection,
        prefix: keys.bullPrefix(),
        concurrency: Math.ceil(config.executorConcurrency / config.executorWorkers),
        // A dead executor's runs come back within ~15 s (stalled check), retried with the next attempt.
        lockDuration: 15_000,
        stalledInterval: 5_000,
        maxStalledCount: 10,
        // One stalled-job check per process is enough: it scans every active job.
        skipStalledCheck: i > 0,
        removeOnComplete: KEEP_COMPLETED,
        removeOnFail: KEEP_FAILED,
      }),
  );
  for (const worker of workers) {
    worker.on('error', (err) => logger.warn({ err: err.message }, 'execute worker error'));
    worker.on('failed', (job, err) => {
      if (job && !(err instanceof WaitingError))
        logger.error({ job: job.name, err: err.message }, 'execute job failed');
    });
  }
  logger.info(
    { concurrency: config.executorConcurrency, workers: config.executorWorkers },
    'executor started',
  );

  return {
    async close() {
      // Stop fetching first, then hand back what waits for its due time; in-flight calls finish.
      lossWatch.stop();
      const closing = Promise.all(workers.map((w) => w.close()));
      const withdrawn = gate.close();
      if (withdrawn > 0) logger.info({ withdrawn }, 'handed back runs not yet due');
      await closing;
      await recorder.stop();
      await caller.close();
      await Promise.all(
        [fast.quit(), subscriber.quit(), bullConnection.quit()].map((p) => p.catch(() => undefined)),
      );
    },
  };
}
