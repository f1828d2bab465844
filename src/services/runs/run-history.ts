import { parseTaskKey } from '../../domain/plan/task-key.js';
import type { Task, TaskStatus } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import { AppRepository } from '../../storage/db/app-repository.js';
import type { AccessScope } from '../timers/access.js';
import { decodeCursor, type Numbered, type Page, pageOf } from '../timers/page.js';
import { defined } from '../timers/timer-rules.js';
import type { TimerStore } from '../timers/timer-store.js';
import { type RunDetail, runDetail } from './run-detail.js';

export interface TaskQuery {
  statuses?: TaskStatus[] | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** The pending runs still to come, soonest first (otherwise: history, runs at or before now, newest first). */
  upcoming?: boolean | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface NumberedTaskQuery {
  timerId: number;
  statuses: readonly TaskStatus[];
  offset: number;
  limit: number;
}

/** A timer's runs as they are listed: its history, the runs to come, and the dashboard's views across timers. */
export class RunHistory {
  constructor(private readonly store: TimerStore) {}

  /** History (runs at or before now, newest first) or, with `upcoming`, the pending runs to come, soonest first. */
  async list(scope: AccessScope, timerId: number, q: TaskQuery): Promise<Page<Task>> {
    await this.store.owned(scope, timerId);
    const now = this.store.deps.now();
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const items = await this.store.tasks.listForTimer({
      ...defined({ statuses: q.statuses, fromMs: q.fromMs, toMs: q.toMs }),
      ...(q.upcoming
        ? { afterMs: after ?? now, ascending: true, statuses: ['pending'] as const }
        : { beforeMs: after ?? now + 1 }),
      timerId,
      limit: q.limit + 1,
    });
    return pageOf(items, q.limit, (t) => t.runAt);
  }

  /**
   * One run opened: the row, the request its attempts send (rebuilt from the timer's
   * callback as it is now) and the latest attempt's answer.
   */
  async detail(scope: AccessScope, timerId: number, taskId: string): Promise<RunDetail> {
    const timer = await this.store.owned(scope, timerId);
    const ref = parseTaskKey(taskId);
    const task = ref?.timerId === timerId ? await this.store.tasks.findInHistory(timerId, ref.runAt) : null;
    if (!task) throw new XtimerError(ErrorCode.TASK_NOT_FOUND, `timer ${timerId} has no run ${taskId}`);
    const app = await new AppRepository(this.store.deps.database.db).find(timer.app);
    return runDetail(timer, task, Boolean(app?.signingSecret));
  }

  /** A timer's runs in offset pages with a total, newest first; only those in `statuses`. */
  async listNumbered(scope: AccessScope, q: NumberedTaskQuery): Promise<Numbered<Task>> {
    await this.store.owned(scope, q.timerId);
    const [items, total] = await Promise.all([
      this.store.tasks.listForTimer(q),
      this.store.tasks.countForTimer(q.timerId, q.statuses),
    ]);
    return { items, total };
  }

  /** The latest `limit` runs up to now of each timer, newest first (the dashboard's list). */
  async recent(timerIds: readonly number[], limit: number): Promise<Map<number, Task[]>> {
    const beforeMs = this.store.deps.now() + 1;
    const lists = await Promise.all(
      timerIds.map((timerId) => this.store.tasks.listForTimer({ timerId, beforeMs, limit })),
    );
    return new Map(timerIds.map((id, i) => [id, lists[i]!]));
  }

  /**
   * Runs of every timer in one status, newest first, optionally of one app (the
   * dashboard's failed and missed runs); `before` is the last run of the previous page.
   */
  async byStatus(q: {
    status: TaskStatus;
    app?: string | undefined;
    before?: { runAt: number; id: number } | undefined;
    limit: number;
  }): Promise<{ items: Task[]; more: boolean }> {
    const items = await this.store.tasks.listByStatus({ ...q, limit: q.limit + 1 });
    const more = items.length > q.limit;
    if (more) items.length = q.limit;
    return { items, more };
  }
}
