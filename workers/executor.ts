import type { Core } from '../src/core.js';
import { EventLoopLag } from '../src/lib/event-loop-lag.js';
import { LaneFetching } from '../src/services/firing/admission/lane-fetching.js';
import { buildExecutor } from '../src/services/firing/build-executor.js';
import { ExecuteJobProcessor } from '../src/services/firing/execute-job-processor.js';
import { LaneJobRunner } from '../src/services/firing/lane-job-runner.js';
import { startLaneWorkers } from '../src/services/firing/lane-workers.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { handOnLate } from '../src/storage/redis/queues.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { startNotifier } from './notifier.js';
import type { RunningRole } from './running-role.js';

/**
 * The executor role: BullMQ workers on the execute lanes (`execute`, and beside it the
 * catch-up lane `execute-late`: belongsInCatchUpLane, CatchUpThrottle), wired to a
 * RunExecutor. Queue concurrency stands in for the original's goroutine pool: a slot
 * holds one job (a run or a batch of runs) from the claim, through the wait for the due
 * millisecond, to the outcome; runs waiting for their app's slot or backing off before a
 * retry hold none.
 */
export async function startExecutor(core: Core): Promise<RunningRole> {
  const { config, keys } = core;
  const logger = core.logger.child({ component: 'executor' });
  // Claims and bloom checks of runs arriving together go out in one pipeline (on one
  // Redis: a cluster's connections are never auto-pipelined, see createRedis).
  const fast = withScripts(
    createRedis(config.redisUrl, { enableAutoPipelining: true, connectionName: 'xtimer-executor' }),
  );
  const subscriber = createRedis(config.redisUrl, { connectionName: 'xtimer-executor-events' });
  const bullConnection = createRedis(config.redisUrl, { connectionName: 'xtimer-executor-bull' });
  for (const c of [fast, subscriber, bullConnection]) core.connectionLogs.redis.watch(c);

  const built = await buildExecutor(core, { fast, subscriber }, logger);
  const notifier = startNotifier(core, built.notifications, bullConnection);
  const runner = new LaneJobRunner({
    processor: new ExecuteJobProcessor(built.executor, built.missed),
    handOn: (job) => handOnLate(core.queues.executeLate, job),
    logger,
    now: core.now,
  });
  const lanes = startLaneWorkers({
    connection: bullConnection,
    keys,
    runner,
    concurrency: config.executorConcurrency,
    workers: config.executorWorkers,
    maxRuns: config.executorMaxRuns,
    logger,
    redisLog: core.connectionLogs.redis,
  });
  // The late lane fetches only with the time the runs due now leave; both stop for the API and an outage.
  const fetching = new LaneFetching({
    onTime: lanes.onTime,
    late: lanes.late,
    lag: new EventLoopLag(),
    busySinceLastLook: () => core.foreground.busySinceLastLook(),
    failingFor: built.failingFor,
    logger,
  }).start();
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
    abandon: built.abandon,
    async close() {
      // Stop fetching first, then withdraw what waits for its due time or its app's slot;
      // calls in flight finish (each within its timeout), then their outcomes are written.
      fetching.stop();
      await built.close(() => Promise.all([...lanes.all.map((w) => w.close()), notifier.close()]));
      await Promise.all(
        [fast.quit(), subscriber.quit(), bullConnection.quit()].map((p) => p.catch(() => undefined)),
      );
    },
  };
}
