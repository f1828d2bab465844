/**
 * The baseline: the same load through BullMQ's own job schedulers. One scheduler per
 * timer (`upsertJobScheduler`, the same cron), and a BullMQ worker making the same
 * undici callback to the same sink, with the same headers (task id = timerId_scheduledMs).
 *
 *   node --import tsx bench/bullmq-baseline.ts <redisUrl> <prefix> <sinkUrl> <timers> <cron> <concurrency>
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Agent } from 'undici';

const [
  redisUrl = 'redis://127.0.0.1:6379',
  prefix = 'bench-bull',
  sinkUrl = '',
  count = '100',
  cron = '* * * * * *',
  concurrency = '1000',
] = process.argv.slice(2);
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const queue = new Queue('baseline', { connection, prefix });
const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
const target = new URL(sinkUrl);

async function main(): Promise<void> {
  const n = Number(count);
  for (let i = 0; i < n; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, n - i) }, (_, k) =>
        queue.upsertJobScheduler(
          `t${i + k}`,
          { pattern: cron, tz: 'UTC' },
          {
            name: 'fire',
            data: { timerId: i + k + 1 },
            opts: { removeOnComplete: true, removeOnFail: true },
          },
        ),
      ),
    );
  }
  const worker = new Worker(
    'baseline',
    async (job) => {
      // A scheduler's job id is repeat:<schedulerId>:<scheduled ms>.
      const scheduledAt = Number(String(job.id).split(':').at(-1));
      const res = await agent.request({
        origin: target.origin,
        path: target.pathname,
        method: 'POST',
        headers: {
          'x-xtimer-task-id': `${job.data.timerId}_${scheduledAt}`,
          'x-xtimer-timer-id': String(job.data.timerId),
          'x-xtimer-scheduled-at': String(scheduledAt),
          'x-xtimer-attempt': '1',
        },
        body: null,
      });
      await res.body.text();
      return res.statusCode;
    },
    {
      connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
      prefix,
      concurrency: Number(concurrency),
    },
  );
  worker.on('error', () => undefined);
  process.stdout.write('baseline ready\n');
  process.once('SIGTERM', async () => {
    await worker.close();
    await queue.close();
    process.exit(0);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
