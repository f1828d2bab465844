import type { Core } from '../core.js';
import { runsOf } from '../storage/redis/queues.js';

/** Gauges read from the shared stores when scraped: active timers (at most every 10 s) and queue depths. */
export function collectClusterGauges(core: Core): void {
  let activeReadAt = 0;
  core.metrics.onScrape(async () => {
    if (Date.now() - activeReadAt < 10_000) return;
    activeReadAt = Date.now();
    core.metrics.activeTimers.set(await core.timers.definitions.countActive());
  });
  core.metrics.onScrape(async () => {
    const { trigger, execute, executeLate } = core.queues;
    for (const queue of [trigger, execute, executeLate]) {
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'completed');
      for (const [state, n] of Object.entries(counts))
        core.metrics.queueDepth.set({ queue: queue.name, state }, n);
    }
    // Overload shows first as runs waiting in the execute lanes for an executor to fetch them.
    // Backfills and retries are left out: their instants are past by design (earliestQueuedDue).
    let due = Date.now();
    for (const lane of [execute, executeLate]) {
      const [oldest] = await lane.getJobs(['wait'], 0, 0, true);
      if (!oldest || oldest.data.slice === 'retry') continue;
      for (const r of runsOf(oldest.data)) if (r.trigger !== 'backfill') due = Math.min(due, r.runAt);
    }
    core.metrics.oldestDueAge.set({ where: 'queue' }, Math.max(0, Date.now() - due) / 1000);
  });
}
