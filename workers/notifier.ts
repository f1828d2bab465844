import { UnrecoverableError, Worker } from 'bullmq';
import type { Core } from '../src/core.js';
import type { NotifyJobData } from '../src/domain/failure-event.js';
import { NotificationFailed, type NotificationSender } from '../src/services/notify/notification-sender.js';
import type { RedisClient } from '../src/storage/redis/connection.js';
import { KEEP_COMPLETED, KEEP_FAILED, NOTIFY_QUEUE } from '../src/storage/redis/queues.js';
import type { RunningRole } from './running-role.js';

/**
 * Part of the executor role: a BullMQ worker on `notify` sending failure notifications;
 * the queue retries each with exponential backoff (NOTIFY_ATTEMPTS tries).
 */
export function startNotifier(core: Core, sender: NotificationSender, connection: RedisClient): RunningRole {
  const logger = core.logger.child({ component: 'notifier' });
  const worker = new Worker<NotifyJobData>(
    NOTIFY_QUEUE,
    async (job) => {
      try {
        await sender.send(job.data);
        core.metrics.notifications.inc({ result: 'sent' });
      } catch (err) {
        if (err instanceof NotificationFailed && err.final) throw new UnrecoverableError(err.message);
        throw err;
      }
    },
    {
      connection,
      prefix: core.keys.bullPrefix(NOTIFY_QUEUE),
      concurrency: 50,
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    },
  );
  worker.on('error', (err) => {
    if (!core.connectionLogs.redis.report(err)) logger.warn({ err: err.message }, 'notify worker error');
  });
  worker.on('failed', (job, err) => {
    if (!job) return;
    const done = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!done) return;
    core.metrics.notifications.inc({ result: 'failed' });
    logger.warn({ taskKey: job.data.event.taskId, err: err.message }, 'failure notification given up');
  });
  return { close: () => worker.close() };
}
