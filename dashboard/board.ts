import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { UITheme } from '@bull-board/api/typings/app';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import type { Hono } from 'hono';
import { taskKey } from '../src/domain/plan/task-key.js';
import { LANE_BEHIND_MS } from '../src/services/firing/admission/execute-lanes.js';
import type {
  ExecuteJobData,
  RunBatchJobData,
  RunJobData,
  SliceJobData,
} from '../src/storage/redis/queues.js';
import type { DashboardPaths } from './views/layout.js';
import { type Colours, FONT_MONO, FONT_SANS, PALETTE } from './views/palette.js';

/** The queues the board shows: slice jobs on `trigger`, runs and run batches on `execute`. */
export interface BoardQueues {
  trigger: Queue<SliceJobData>;
  execute: Queue<ExecuteJobData>;
  executeLate: Queue<ExecuteJobData>;
}

/** An execute job's data as the board hands it over: a run's fields, or a batch's. */
type ExecuteJson = Partial<RunJobData> & Partial<RunBatchJobData>;

/** A job as bull-board hands it to the `name` formatter (its JSON form). */
interface JobJson<T> {
  name?: string;
  data?: Partial<T>;
}

const iso = (ms: unknown) =>
  typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : '?';

/**
 * bull-board over `trigger` and the execute lanes, at `paths.queues`. Job names are the slice key and
 * the task key, shown with what a person searches by ("timer 42 at 10:05:03Z"); each run
 * links to its timer's page. Read-only: MySQL is the source of truth, so emptying or
 * retrying jobs here would bypass the planner and the compensator (change timers through
 * the API or the timers page instead).
 */
export function createBoard(queues: BoardQueues, paths: DashboardPaths): Hono {
  const timersPath = paths.timers;
  const failedRuns = `${paths.runs}?status=failed`;
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

  const executeLane = (queue: Queue<ExecuteJobData>, displayName: string, lane: string) => {
    const adapter = new BullMQAdapter(queue, {
      readOnlyMode: true,
      displayName,
      description:
        lane +
        `A lone run is its own job, named by its task key timerId_runAtMs (open it at queue/${queue.name}/<task key>): ` +
        'data timerId, runAt (ms, UTC), slice; result verdict, attempt, httpStatus, latencyMs. ' +
        'Several runs of one slice second go as one batch job named "<slice> <HH:mm:ss>Z ×<n>": ' +
        'data lists each run by task key; result counts verdicts and names the runs that did not succeed. ' +
        'FAILURES ARE NOT IN THE FAILED TAB: a run that fails is recorded, and its job completes with verdict "failed" in its result. ' +
        `Every failed run, with a Retry button, is at ${failedRuns} (menu: Failed runs).`,
      externalJobUrl: (job) => {
        const data: ExecuteJson = (job as JobJson<ExecuteJson>).data ?? {};
        if (data.runs) return { displayText: 'timers', href: timersPath };
        return {
          displayText: `timer ${data.timerId ?? '?'} runs`,
          href: `${timersPath}/${data.timerId ?? ''}?at=${data.runAt ?? ''}`,
        };
      },
    });
    adapter.setFormatter('name', (job: JobJson<ExecuteJson>) => {
      const d = job.data ?? {};
      if (d.runs) return job.name ?? '';
      return `${job.name ?? ''} · timer ${d.timerId ?? '?'} at ${iso(d.runAt)}`;
    });
    adapter.setFormatter('data', (data: ExecuteJson) =>
      data?.runs
        ? {
            slice: data.slice,
            runs: data.runs.map((r) => ({ taskKey: taskKey(r.timerId, r.runAt), runAtUtc: iso(r.runAt) })),
          }
        : { ...data, runAtUtc: iso(data?.runAt) },
    );
    return adapter;
  };
  const execute = executeLane(queues.execute, 'execute — runs', '');
  const executeLate = executeLane(
    queues.executeLate,
    'execute-late — runs, catch-up lane',
    `Jobs handed on from "execute" that had waited there more than ${LANE_BEHIND_MS / 1000} s behind a backlog (overload), and overdue runs ` +
      '(the compensator\'s, backfills): worked beside "execute" with a small share, so that runs due now are not held ' +
      'back by a backlog. ',
  );

  const serverAdapter = new HonoAdapter(serveStatic);
  serverAdapter.setBasePath(paths.queues);
  createBullBoard({
    queues: [trigger, execute, executeLate],
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: 'xtimer',
        miscLinks: [
          { text: 'Timers', url: timersPath },
          { text: 'Failed runs', url: failedRuns },
          { text: 'Changes', url: paths.audit },
          { text: 'API reference', url: '/docs' },
        ],
        sortQueues: false,
        theme: { light: boardTheme(PALETTE.light), dark: boardTheme(PALETTE.dark) },
      },
    },
  });
  return serverAdapter.registerPlugin();
}

/** bull-board's theme tokens from the console's palette and type: the board and the pages look alike. */
function boardTheme(c: Colours): NonNullable<UITheme['light']> {
  return {
    background: c.soft,
    foreground: c.fg,
    card: c.bg,
    popover: c.bg,
    primary: c.accent,
    'primary-foreground': c.onColor,
    secondary: c.soft,
    'secondary-foreground': c.fg,
    muted: c.soft,
    'muted-foreground': c.muted,
    accent: c.soft,
    'accent-foreground': c.fg,
    destructive: c.bad,
    'destructive-foreground': c.onColor,
    border: c.line,
    input: c.line,
    ring: c.accent,
    sidebar: c.bg,
    'sidebar-foreground': c.fg,
    'sidebar-primary': c.accent,
    'sidebar-primary-foreground': c.onColor,
    'sidebar-border': c.line,
    'sidebar-ring': c.accent,
    'font-sans': FONT_SANS,
    'font-mono': FONT_MONO,
    'status-failed': c.bad,
    'status-completed': c.ok,
    'status-waiting': c.warn,
    'status-active': c.accent,
    'status-delayed': c.odd,
  };
}
