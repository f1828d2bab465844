import type { ApplyStep } from '../../domain/apply-plan.js';
import type { ChangeAuthor } from '../../domain/audit.js';
import type { Calendar } from '../../domain/schedule/calendar.js';
import type { ExplainedRun } from '../../domain/schedule/timer-schedule.js';
import type {
  Labels,
  PauseRequest,
  Task,
  TaskStatus,
  Timer,
  TimerDraft,
  TimerPatch,
  TimerStatus,
} from '../../domain/timer.js';
import type { VersionMatch } from '../../domain/version-match.js';
import type { BackfillService } from './backfill-service.js';
import type { Page } from './page.js';

/**
 * The timer use cases' queries and answers, and the use cases themselves without an actor:
 * what TimerService implements and ScopedTimers wraps with the access rule. Apart from both
 * so that ScopedTimers (built by TimerService.as) need not import TimerService.
 */

export interface TimerQuery {
  app?: string | undefined;
  status?: TimerStatus | undefined;
  /** Timers carrying every one of these labels. */
  labels?: Labels | undefined;
  /** Names holding this text, case-insensitively. */
  nameContains?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** An offset page and the number of all matches (the xtimer-compatible API's paging). */
export interface Numbered<T> {
  items: T[];
  total: number;
}

export interface NumberedTimerQuery {
  app: string;
  name?: string | undefined;
  nameContains?: string | undefined;
  offset: number;
  limit: number;
}

export interface NumberedTaskQuery {
  timerId: number;
  statuses: readonly TaskStatus[];
  offset: number;
  limit: number;
}

export interface TaskQuery {
  statuses?: TaskStatus[] | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** The pending runs still to come, soonest first (otherwise: history, runs at or before now, newest first). */
  upcoming?: boolean | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A run made on demand (run now, retry), as the API answers it. */
export interface QueuedRunView {
  id: string;
  timerId: number;
  runAt: number;
  status: 'pending';
  trigger: 'manual' | 'retry';
}

/** What a PUT of a timer by name did. */
export type UpsertOutcome = 'created' | 'replaced' | 'unchanged';

/** What an apply did (or, on a dry run, would do). */
export interface ApplyResult {
  plan: ApplyStep[];
  applied: boolean;
}

export interface ApplyOptions {
  /** Delete the app's timers that the set leaves out. */
  prune: boolean;
  /** Only plan: change nothing. */
  dryRun: boolean;
}

/** A schedule not saved yet, as a preview reads it (app and name seed its `H` values). */
export type SchedulePreviewFields = Pick<Timer, 'cron' | 'timezone'> &
  Partial<Pick<Timer, 'everyMs' | 'offsetMs' | 'app' | 'name'>>;

/** The timer use cases as TimerService does them, for no actor in particular; `by` is who the audit log names. */
export interface TimerUseCases {
  create(draft: TimerDraft, by?: ChangeAuthor): Promise<Timer>;
  createMany(drafts: readonly TimerDraft[], by?: ChangeAuthor): Promise<Timer[]>;
  upsert(
    draft: TimerDraft,
    by?: ChangeAuthor,
    ifMatch?: VersionMatch,
  ): Promise<{ timer: Timer; outcome: UpsertOutcome }>;
  apply(
    app: string,
    drafts: readonly TimerDraft[],
    options: ApplyOptions,
    by?: ChangeAuthor,
  ): Promise<ApplyResult>;
  get(id: number): Promise<Timer>;
  list(q: TimerQuery): Promise<Page<Timer>>;
  listNumbered(q: NumberedTimerQuery): Promise<Numbered<Timer>>;
  listTasks(timerId: number, q: TaskQuery): Promise<Page<Task>>;
  listTasksNumbered(q: NumberedTaskQuery): Promise<Numbered<Task>>;
  preview(id: number, count: number, fromMs?: number): Promise<{ timer: Timer; runs: number[] }>;
  explain(id: number, count: number, fromMs?: number): Promise<{ timer: Timer; runs: ExplainedRun[] }>;
  previewSchedule(fields: SchedulePreviewFields, count: number, fromMs?: number): number[];
  update(id: number, patch: TimerPatch, by?: ChangeAuthor, ifMatch?: VersionMatch): Promise<Timer>;
  delete(id: number, by?: ChangeAuthor, ifMatch?: VersionMatch): Promise<void>;
  enable(id: number, by?: ChangeAuthor): Promise<Timer>;
  disable(id: number, by?: ChangeAuthor, pause?: PauseRequest): Promise<Timer>;
  putCalendar(
    app: string,
    name: string,
    body: { dates: readonly string[]; description: string | null },
    by?: ChangeAuthor,
  ): Promise<{ calendar: Calendar; created: boolean }>;
  getCalendar(app: string, name: string): Promise<Calendar>;
  listCalendars(app: string): Promise<Calendar[]>;
  deleteCalendar(app: string, name: string, by?: ChangeAuthor): Promise<void>;
  pauseApp(app: string, pause: PauseRequest, by?: ChangeAuthor): Promise<number>;
  resumeApp(app: string, by?: ChangeAuthor): Promise<number>;
  trigger(id: number, by?: ChangeAuthor): Promise<QueuedRunView>;
  retryRun(timerId: number, taskId: string, by?: ChangeAuthor): Promise<QueuedRunView>;
  readonly backfills: Pick<BackfillService, 'start' | 'get' | 'list' | 'cancel'>;
}
