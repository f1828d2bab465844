import type { ChangeAuthor } from '../../domain/audit.js';
import type { Calendar } from '../../domain/schedule/calendar.js';
import type { PauseRequest, Task, Timer, TimerDraft, TimerPatch } from '../../domain/timer.js';
import type { VersionMatch } from '../../domain/version-match.js';
import { RateLimitedError } from '../../errors.js';
import type { RateLimiter } from '../../storage/redis/rate-limiter.js';
import { type Actor, assertCanUseApp, assertNotRetired } from './access.js';
import type { BackfillRequest, BackfillView } from './backfill-service.js';
import type { Page } from './page.js';
import type {
  ApplyOptions,
  ApplyResult,
  Numbered,
  NumberedTaskQuery,
  NumberedTimerQuery,
  QueuedRunView,
  SchedulePreviewFields,
  TaskQuery,
  TimerQuery,
  TimerUseCases,
  UpsertOutcome,
} from './timer-use-cases.js';

/**
 * The timer use cases as one actor may use them (TimerService.as(actor)); what the
 * native and the compatible routes and the dashboard call. The access rule lives in
 * access.ts; this applies it to every use case, records every change in the audit log
 * under the actor's name, and spends the app's rate limit on every change an app key
 * makes, and on every preview and dry run, which evaluate schedules and look up callback
 * hosts as a change does (APP_RATE_LIMIT_PER_MINUTE; the admin is not limited).
 */
/** What a key in its grace period may not do to a timer (RETIRED_KEY). */
const NOTIFY = 'set or change a notify URL';

export class ScopedTimers {
  constructor(
    private readonly timers: TimerUseCases,
    readonly actor: Actor,
    private readonly author: ChangeAuthor,
    private readonly limiter: RateLimiter | undefined,
    private readonly now: () => number,
  ) {}

  async create(draft: TimerDraft): Promise<Timer> {
    assertCanUseApp(this.actor, draft.app);
    if (draft.notify !== null) assertNotRetired(this.actor, NOTIFY);
    await this.spend();
    return this.timers.create(draft, this.author);
  }

  /** All or nothing; a batch spends one change of the rate limit, however many timers it holds. */
  async createMany(drafts: readonly TimerDraft[]): Promise<Timer[]> {
    const apps = new Set(drafts.map((d) => d.app));
    for (const app of apps) assertCanUseApp(this.actor, app);
    if (drafts.some((d) => d.notify !== null)) assertNotRetired(this.actor, NOTIFY);
    await this.spend();
    return this.timers.createMany(drafts, this.author);
  }

  /** PUT by name: creates or replaces; an equal definition changes nothing. */
  async upsert(draft: TimerDraft, ifMatch?: VersionMatch): Promise<{ timer: Timer; outcome: UpsertOutcome }> {
    assertCanUseApp(this.actor, draft.app);
    await this.spend();
    await this.keepsNotify(draft.app, [draft]);
    return this.timers.upsert(draft, this.author, ifMatch);
  }

  /** Makes the app's timers the set given (or, dry, plans it); one call of the rate limit, however many timers. */
  async apply(app: string, drafts: readonly TimerDraft[], options: ApplyOptions): Promise<ApplyResult> {
    assertCanUseApp(this.actor, app);
    await this.spend();
    await this.keepsNotify(app, drafts);
    return this.timers.apply(app, drafts, options, this.author);
  }

  async get(id: number): Promise<Timer> {
    return this.owned(id);
  }

  /** An app key lists its own timers, whether or not the query names its app. */
  async list(q: TimerQuery): Promise<Page<Timer>> {
    if (this.actor.kind === 'app') {
      if (q.app !== undefined) assertCanUseApp(this.actor, q.app);
      return this.timers.list({ ...q, app: this.actor.app });
    }
    return this.timers.list(q);
  }

  async listNumbered(q: NumberedTimerQuery): Promise<Numbered<Timer>> {
    assertCanUseApp(this.actor, q.app);
    return this.timers.listNumbered(q);
  }

  async listTasks(timerId: number, q: TaskQuery): Promise<Page<Task>> {
    await this.owned(timerId);
    return this.timers.listTasks(timerId, q);
  }

  async listTasksNumbered(q: NumberedTaskQuery): Promise<Numbered<Task>> {
    await this.owned(q.timerId);
    return this.timers.listTasksNumbered(q);
  }

  async preview(id: number, count: number, fromMs?: number): Promise<{ timer: Timer; runs: number[] }> {
    await this.owned(id);
    await this.spend();
    return this.timers.preview(id, count, fromMs);
  }

  /** The next fire times of a schedule not saved yet. */
  async previewSchedule(fields: SchedulePreviewFields, count: number, fromMs?: number): Promise<number[]> {
    await this.spend();
    return this.timers.previewSchedule(fields, count, fromMs);
  }

  async update(id: number, patch: TimerPatch, ifMatch?: VersionMatch): Promise<Timer> {
    await this.owned(id);
    if (patch.notify !== undefined) assertNotRetired(this.actor, NOTIFY);
    await this.spend();
    return this.timers.update(id, patch, this.author, ifMatch);
  }

  async delete(id: number, ifMatch?: VersionMatch): Promise<void> {
    await this.owned(id);
    await this.spend();
    await this.timers.delete(id, this.author, ifMatch);
  }

  async enable(id: number): Promise<Timer> {
    await this.owned(id);
    await this.spend();
    return this.timers.enable(id, this.author);
  }

  async disable(id: number, pause: PauseRequest = {}): Promise<Timer> {
    await this.owned(id);
    await this.spend();
    return this.timers.disable(id, this.author, pause);
  }

  async putCalendar(
    app: string,
    name: string,
    body: { dates: readonly string[]; description: string | null },
  ) {
    assertCanUseApp(this.actor, app);
    await this.spend();
    return this.timers.putCalendar(app, name, body, this.author);
  }

  async getCalendar(app: string, name: string): Promise<Calendar> {
    assertCanUseApp(this.actor, app);
    return this.timers.getCalendar(app, name);
  }

  async listCalendars(app: string): Promise<Calendar[]> {
    assertCanUseApp(this.actor, app);
    return this.timers.listCalendars(app);
  }

  async deleteCalendar(app: string, name: string): Promise<void> {
    assertCanUseApp(this.actor, app);
    await this.spend();
    await this.timers.deleteCalendar(app, name, this.author);
  }

  async explain(id: number, count: number, fromMs?: number) {
    await this.owned(id);
    await this.spend();
    return this.timers.explain(id, count, fromMs);
  }

  /** Disables all of the app's active timers, with one note. */
  async pauseApp(app: string, pause: PauseRequest): Promise<number> {
    assertCanUseApp(this.actor, app);
    await this.spend();
    return this.timers.pauseApp(app, pause, this.author);
  }

  /** Enables all of the app's disabled timers. */
  async resumeApp(app: string): Promise<number> {
    assertCanUseApp(this.actor, app);
    await this.spend();
    return this.timers.resumeApp(app, this.author);
  }

  async trigger(id: number): Promise<QueuedRunView> {
    await this.owned(id);
    await this.spend();
    return this.timers.trigger(id, this.author);
  }

  async retryRun(id: number, taskId: string): Promise<QueuedRunView> {
    await this.owned(id);
    await this.spend();
    return this.timers.retryRun(id, taskId, this.author);
  }

  /** Runs the schedule over a past range (202 with the backfill; its runs are paced). */
  async startBackfill(id: number, req: BackfillRequest): Promise<BackfillView> {
    const timer = await this.owned(id);
    await this.spend();
    return this.timers.backfills.start(timer, req, this.author);
  }

  async backfill(id: number, backfillId: number): Promise<BackfillView> {
    return this.timers.backfills.get(await this.owned(id), backfillId);
  }

  async listBackfills(id: number): Promise<BackfillView[]> {
    return this.timers.backfills.list(await this.owned(id));
  }

  async cancelBackfill(id: number, backfillId: number): Promise<BackfillView> {
    const timer = await this.owned(id);
    await this.spend();
    return this.timers.backfills.cancel(timer, backfillId, this.author);
  }

  /**
   * A key in its grace period may send definitions only with the notify their timers
   * already have (RETIRED_KEY otherwise): a dry run of the set says what would change. Any
   * notify it can so send is one the app's owner set.
   */
  private async keepsNotify(app: string, drafts: readonly TimerDraft[]): Promise<void> {
    if (this.actor.kind !== 'app' || !this.actor.retired) return;
    const { plan } = await this.timers.apply(app, drafts, { prune: false, dryRun: true });
    const notifies = new Set(drafts.filter((d) => d.notify !== null).map((d) => d.name));
    const changes = plan.some((step) =>
      step.action === 'create' ? notifies.has(step.name) : step.changes?.notify !== undefined,
    );
    if (changes) assertNotRetired(this.actor, NOTIFY);
  }

  /** The timer, if this actor may use it (404 if it does not exist, 403 if it is another app's). */
  private async owned(id: number): Promise<Timer> {
    const timer = await this.timers.get(id);
    assertCanUseApp(this.actor, timer.app);
    return timer;
  }

  private async spend(): Promise<void> {
    if (this.actor.kind !== 'app' || !this.limiter) return;
    const decision = await this.limiter.hit(this.actor.app, this.now());
    if (!decision.allowed) {
      throw new RateLimitedError(
        `app ${this.actor.app} made more changes, previews and dry runs this minute than APP_RATE_LIMIT_PER_MINUTE allows; retry in ${decision.retryAfterSec} s`,
        decision.retryAfterSec,
      );
    }
  }
}
