import type { Core } from '../core.js';
import { runsOf } from '../storage/redis/queues.js';

/** Waiting jobs of each execute lane the oldest-due gauge reads, from the next one on. */
const GAUGE_JOBS_READ = 20;

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
    // Overload shows first as runs waiting in the execute lanes for an executor to fetch them:
    // the next few jobs of each, so a retry or a backfill at the head (their instants are past
    // by design, and left out as earliestQueuedDue does) hides no backlog behind it.
    let due = Date.now();
    for (const lane of [execute, executeLate]) {
      for (const job of await lane.getJobs(['wait'], 0, GAUGE_JOBS_READ - 1, true)) {
        if (!job || job.data.slice === 'retry') continue;
        for (const r of runsOf(job.data)) if (r.trigger !== 'backfill') due = Math.min(due, r.runAt);
      }
    }
    core.metrics.oldestDueAge.set({ where: 'queue' }, Math.max(0, Date.now() - due) / 1000);
  });
}
