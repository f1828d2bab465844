import type { ChangeAuthor } from '../../domain/audit.js';
import { CalendarService } from '../calendars/calendar-service.js';
import { BackfillService } from '../runs/backfill-service.js';
import { RunControls } from '../runs/run-controls.js';
import { RunHistory } from '../runs/run-history.js';
import { AccessScope, type Actor, actorName, type Scoped, scoped } from './access.js';
import { AppPause } from './app-pause.js';
import { SchedulePreviews } from './schedule-previews.js';
import { TimerDefinitions } from './timer-definitions.js';
import { TimerLifecycle } from './timer-lifecycle.js';
import { TimerSelection } from './timer-selection.js';
import { type TimerDeps, TimerStore } from './timer-store.js';
import { TimersAsCode } from './timers-as-code.js';

/** The timer use cases as one actor may call them (TimerService.as): each concept's, the actor's scope bound. */
export interface ScopedTimers {
  readonly actor: Actor;
  readonly definitions: Scoped<TimerDefinitions>;
  readonly lifecycle: Scoped<TimerLifecycle>;
  readonly asCode: Scoped<TimersAsCode>;
  readonly appPause: Scoped<AppPause>;
  readonly previews: Scoped<SchedulePreviews>;
  readonly calendars: Scoped<CalendarService>;
  readonly runs: Scoped<RunControls>;
  readonly history: Scoped<RunHistory>;
  readonly backfills: Scoped<BackfillService>;
  readonly selection: Scoped<TimerSelection>;
}

/**
 * The timer use cases behind the timer routes (native, xtimer-compatible, dashboard),
 * one object per concept over one shared TimerStore. A use case an actor may call takes
 * an AccessScope first and checks it itself; `as(actor)` binds the actor's scope to all
 * of them. The methods without one are xtimer's own (sweeps, the executor, the dashboard's
 * cross-timer views).
 */
export class TimerService {
  readonly definitions: TimerDefinitions;
  readonly lifecycle: TimerLifecycle;
  readonly asCode: TimersAsCode;
  readonly appPause: AppPause;
  readonly previews: SchedulePreviews;
  readonly calendars: CalendarService;
  readonly runs: RunControls;
  readonly history: RunHistory;
  readonly backfills: BackfillService;
  readonly selection: TimerSelection;

  constructor(private readonly deps: TimerDeps) {
    const store = new TimerStore(deps);
    this.definitions = new TimerDefinitions(store);
    this.lifecycle = new TimerLifecycle(store);
    this.asCode = new TimersAsCode(store, this.definitions);
    this.appPause = new AppPause(store, this.lifecycle);
    this.previews = new SchedulePreviews(store);
    this.calendars = new CalendarService(store);
    this.runs = new RunControls(store);
    this.history = new RunHistory(store);
    this.backfills = new BackfillService(deps, store);
    this.selection = new TimerSelection(store, this.lifecycle, this.runs);
  }

  /**
   * The use cases as `actor` may use them: an app key reaches only its own app's timers.
   * Its changes are audited under the actor's name, in the batch `batchId` if one is given.
   */
  as(actor: Actor, options: { batchId?: string | undefined } = {}): ScopedTimers {
    return this.within(this.scopeOf(actor, options.batchId));
  }

  /**
   * As `as`, with `calls` of the app's rate limit spent at once and nothing more: one
   * request that makes several changes (a compat PATCH's definition and status) counts as
   * what the caller asked for.
   */
  async asPrepaid(actor: Actor, calls: number): Promise<ScopedTimers> {
    return this.within(await this.scopeOf(actor).prepaid(calls));
  }

  private scopeOf(actor: Actor, batchId?: string): AccessScope {
    const author: ChangeAuthor = { actor: actorName(actor), batchId: batchId ?? null };
    return new AccessScope(actor, author, this.deps.policy?.limiter, this.deps.now);
  }

  private within(scope: AccessScope): ScopedTimers {
    const { actor } = scope;
    return {
      actor,
      definitions: scoped(this.definitions, scope),
      lifecycle: scoped(this.lifecycle, scope),
      asCode: scoped(this.asCode, scope),
      appPause: scoped(this.appPause, scope),
      previews: scoped(this.previews, scope),
      calendars: scoped(this.calendars, scope),
      runs: scoped(this.runs, scope),
      history: scoped(this.history, scope),
      backfills: scoped(this.backfills, scope),
      selection: scoped(this.selection, scope),
    };
  }
}
