import { DAY, planPartitions } from '../../domain/plan/day-partitions.js';
import type { Logger } from '../../observability/logger.js';
import type { TaskPartitions } from '../../storage/db/tasks/task-partitions.js';

export interface RetentionSettings {
  /** TASK_RETENTION_DAYS: runs are kept this long, then their day is dropped. */
  retentionDays: number;
  /** TASK_RETENTION_FAILED_DAYS (≥ retentionDays): failed and missed runs are kept this long. */
  failedRetentionDays: number;
  /** Days after today that get their partition ahead of time. */
  aheadDays: number;
}

export interface RetentionReport {
  added: number;
  dropped: number;
  failuresKept: number;
  failuresPurged: number;
}

/**
 * Keeps the run history's day partitions: today's and the next days' exist before their
 * runs are planned, and a day whose runs are all older than TASK_RETENTION_DAYS is
 * dropped whole — one DROP PARTITION a day instead of deleting its rows, whatever the
 * fire rate. Its failed and missed runs are first copied to `task_failures`, kept
 * TASK_RETENTION_FAILED_DAYS. Idempotent: a pass interrupted anywhere is finished by the
 * next one.
 */
export class HistoryRetention {
  constructor(
    private readonly partitions: TaskPartitions,
    private readonly settings: RetentionSettings,
    private readonly logger: Logger,
  ) {}

  async run(nowMs: number): Promise<RetentionReport> {
    const report: RetentionReport = { added: 0, dropped: 0, failuresKept: 0, failuresPurged: 0 };
    const existing = await this.partitions.list();
    if (existing === null) {
      this.logger.warn('tasks is not partitioned (migration 0009 missing?): run history is not purged');
      return report;
    }
    const { retentionDays, failedRetentionDays, aheadDays } = this.settings;
    const plan = planPartitions(existing, nowMs, aheadDays, retentionDays);
    await this.partitions.addDays(plan.add);
    report.added = plan.add.length;
    for (const partition of plan.drop) {
      if (failedRetentionDays > retentionDays)
        report.failuresKept += await this.partitions.keepFailures(partition.name);
      await this.partitions.drop(partition.name);
      report.dropped++;
      this.logger.info({ partition: partition.name }, 'run history partition dropped');
    }
    report.failuresPurged = await this.partitions.purgeFailures(nowMs - failedRetentionDays * DAY);
    return report;
  }
}
