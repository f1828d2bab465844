import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import type { Hono } from 'hono';
import type { RunJobData, SliceJobData } from '../src/storage/redis/queues.js';

/** The queues the board shows (SPEC §2): slice jobs on `trigger`, one job per run on `execute`. */
export interface BoardQueues {
  trigger: Queue<SliceJobData>;
  execute: Queue<RunJobData>;
}

/** A job as bull-board hands it to the `name` formatter (its JSON form). */
interface JobJson<T> {
  name?: string;
  data?: Partial<T>;
}

const iso = (ms: unknown) =>
  typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : '?';

/**
 * bull-board over `trigger` and `execute`, at `basePath`. Job names are the slice key and
 * the task key, shown with what a person searches by ("timer 42 at 10:05:03Z"); each run
 * links to its timer's page. Read-only: MySQL is the source of truth, so emptying or
 * retrying jobs here would bypass the planner and the compensator (change timers through
 * the API or the timers page instead).
 */
export function createBoard(queues: BoardQueues, basePath: string, timersPath: string): Hono {
  const trigger = new BullMQAdapter(queues.trigger, {
    readOnlyMode: true,
    displayName: 'trigger — slices',
    description:
      'One job per (minute, bucket) slice, named by its slice key YYYY-MM-DDTHH:mm_bucket (UTC). ' +
      'Data: minute, bucket, bucketCount, owner (the scheduler that claimed it), claimedAt.',
  });
  trigger.setFormatter('name', (job: JobJson<SliceJobData>) => {
    const d = job.data ?? {};
    return `${job.name ?? ''} · bucket ${d.bucket ?? '?'}/${d.bucketCount ?? '?'} · claimed by ${d.owner ?? '?'}`;
  });
  trigger.setFormatter('data', (data: SliceJobData) => ({ ...data, claimedAtUtc: iso(data?.claimedAt) }));

  const execute = new BullMQAdapter(queues.execute, {
    readOnlyMode: true,
    displayName: 'execute — runs',
    description:
      'One job per run, named by its task key timerId_runAtMs. Data: timerId, runAt (ms, UTC), slice. ' +
      'Result: verdict, attempt, httpStatus, latencyMs. Open a run directly at queue/execute/<task key>.',
    externalJobUrl: (job) => {
      const data = (job as JobJson<RunJobData>).data ?? {};
      return {
        displayText: `timer ${data.timerId ?? '?'} runs`,
        href: `${timersPath}/${data.timerId ?? ''}?at=${data.runAt ?? ''}`,
      };
    },
  });
  execute.setFormatter('name', (job: JobJson<RunJobData>) => {
    const d = job.data ?? {};
    return `${job.name ?? ''} · timer ${d.timerId ?? '?'} at ${iso(d.runAt)}`;
  });
  execute.setFormatter('data', (data: RunJobData) => ({ ...data, runAtUtc: iso(data?.runAt) }));

  const serverAdapter = new HonoAdapter(serveStatic);
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    queues: [trigger, execute],
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: 'xtimer',
        miscLinks: [
          { text: 'Timers', url: timersPath },
          { text: 'API reference', url: '/docs' },
        ],
        sortQueues: false,
      },
    },
  });
  return serverAdapter.registerPlugin();
}
