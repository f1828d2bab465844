import type { Core } from '../../core.js';
import type { Logger } from '../../observability/logger.js';
import { TaskRepository } from '../../storage/db/tasks/task-repository.js';
import { fanOutRuns } from '../../storage/redis/queues.js';
import { RunFanOut } from './run-fan-out.js';
import type { SliceLockKeeper } from './slice-lock-keeper.js';
import { SliceReader } from './slice-reader.js';
import { abortableSleep, SliceWalker } from './slice-walker.js';

/**
 * The trigger's SliceWalker over the core's stores: each window read from its slice (or
 * MySQL while Redis has lost its data), its runs fanned into `execute` together with the
 * process's other walks' (RunFanOut), the slice lock kept by `locks`.
 */
export function buildSliceWalker(core: Core, locks: SliceLockKeeper, logger: Logger): SliceWalker {
  const { config, keys, queues } = core;
  return new SliceWalker({
    reader: new SliceReader(
      core.redis,
      keys,
      core.slices,
      new TaskRepository(core.database.db, core.database.pool),
      config.buckets,
    ),
    fanOut: new RunFanOut((runs, slice) => fanOutRuns(queues.execute, runs, slice), core.now).queue,
    hold: (data) => locks.hold(data),
    ack: (data) => locks.ack(data),
    metrics: core.metrics,
    prereadMs: config.prereadMs,
    logger,
    now: core.now,
    sleep: abortableSleep,
  });
}
