import type { FailureEvent, NotifyJobData } from '../../domain/failure-event.js';
import { taskKey } from '../../domain/plan/task-key.js';
import type { Notify, NotifyOutcome, Timer } from '../../domain/timer.js';

export interface FailureNotifierDeps {
  /** Queues the notification (the `notify` queue retries it with backoff); `jobId` makes it once per run. */
  enqueue(jobId: string, data: NotifyJobData): Promise<void>;
  /** The app's default notification, for timers that set none. */
  appNotify(app: string): Promise<Notify | null>;
  now?: () => number;
}

const APP_NOTIFY_TTL_MS = 10_000;

/**
 * Reports runs that finally ended failed or missed to the timer's `notify` target (or
 * its app's default), when that target asked for the outcome: one notification per run.
 */
export class FailureNotifier {
  private readonly appDefaults = new Map<string, { notify: Promise<Notify | null>; at: number }>();

  constructor(private readonly d: FailureNotifierDeps) {}

  async report(
    timer: Pick<Timer, 'id' | 'app' | 'notify'>,
    outcome: NotifyOutcome,
    run: { runAt: number; attempts: number; httpStatus: number | null; error: string | null },
  ): Promise<void> {
    const notify = timer.notify ?? (await this.appDefault(timer.app));
    if (!notify?.on.includes(outcome)) return;
    const taskId = taskKey(timer.id, run.runAt);
    const event: FailureEvent = {
      type: `run.${outcome}`,
      timerId: timer.id,
      app: timer.app,
      taskId,
      runAt: new Date(run.runAt).toISOString(),
      attempts: run.attempts,
      httpStatus: run.httpStatus,
      error: run.error,
    };
    await this.d.enqueue(`${taskId}_${outcome}_${run.attempts}`, { url: notify.url, app: timer.app, event });
  }

  /**
   * Reports that `run`'s failure auto-paused the timer (`timer.paused`, with the pause's
   * note), to a notify target that asked for failures: once per pause.
   */
  async reportPaused(
    timer: Pick<Timer, 'id' | 'app' | 'notify'>,
    note: string,
    run: { runAt: number; attempts: number; httpStatus: number | null; error: string | null },
  ): Promise<void> {
    const notify = timer.notify ?? (await this.appDefault(timer.app));
    if (!notify?.on.includes('failed')) return;
    const taskId = taskKey(timer.id, run.runAt);
    const event: FailureEvent = {
      type: 'timer.paused',
      timerId: timer.id,
      app: timer.app,
      taskId,
      runAt: new Date(run.runAt).toISOString(),
      attempts: run.attempts,
      httpStatus: run.httpStatus,
      error: run.error,
      note,
    };
    await this.d.enqueue(`${taskId}_paused`, { url: notify.url, app: timer.app, event });
  }

  private async appDefault(app: string): Promise<Notify | null> {
    const now = (this.d.now ?? Date.now)();
    const cached = this.appDefaults.get(app);
    if (cached && now - cached.at < APP_NOTIFY_TTL_MS) return cached.notify;
    // The read itself is cached: the thousands of runs an overloaded executor settles
    // `missed` at once ask MySQL once, not once each.
    const notify = this.d.appNotify(app);
    this.appDefaults.set(app, { notify, at: now });
    notify.catch(() => this.appDefaults.delete(app));
    return notify;
  }
}
