import type { PauseRequest, Timer } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import type { RunControls } from '../runs/run-controls.js';
import type { AccessScope } from './access.js';
import type { TimerLifecycle } from './timer-lifecycle.js';
import type { TimerStore } from './timer-store.js';

export const SELECTION_ACTIONS = ['pause', 'resume', 'trigger'] as const;
export type SelectionAction = (typeof SELECTION_ACTIONS)[number];

/** The most timers one bulk action takes: a page of the console's "all matching" is far below it. */
export const SELECTION_MAX = 1000;

export interface SelectionRequest {
  action: SelectionAction;
  ids: readonly number[];
  /** For a pause: its note and `until`, the same for every timer. */
  pause?: PauseRequest | undefined;
}

export interface SelectionResult {
  action: SelectionAction;
  /** The batch the audit log files each change under (null: none was given). */
  batchId: string | null;
  /** How many distinct timers were selected. */
  selected: number;
  /** How many it changed: paused, resumed, or run now. */
  changed: number;
  /** Those it left as they were (already paused, already active, completed). */
  unchanged: number[];
}

/**
 * A bulk action over timers chosen by hand or by a filter: pause (one note and `until`),
 * resume, or run now, each timer through the same use case as on its own. Every timer is
 * checked before any changes, so one the caller may not use refuses the whole batch; each
 * change is audited in the caller's batch (`TimerService.as(actor, { batchId })`).
 */
export class TimerSelection {
  constructor(
    private readonly store: TimerStore,
    private readonly lifecycle: Pick<TimerLifecycle, 'enableAs' | 'disableAs'>,
    private readonly runs: Pick<RunControls, 'trigger'>,
  ) {}

  async apply(scope: AccessScope, req: SelectionRequest): Promise<SelectionResult> {
    const ids = [...new Set(req.ids)];
    if (ids.length === 0 || ids.length > SELECTION_MAX) {
      throw new XtimerError(ErrorCode.VALIDATION_FAILED, `ids: select 1 to ${SELECTION_MAX} timers`, [
        { path: 'ids', message: `must hold 1 to ${SELECTION_MAX} timer ids` },
      ]);
    }
    const timers: Timer[] = [];
    for (const id of ids) timers.push(await this.store.owned(scope, id));
    // Run now spends the rate limit per run (each is a call), all before the first goes, so
    // a refusal starts none; a pause or resume once, as an app's pause.
    const acting = req.action === 'trigger' ? await scope.prepaid(timers.length) : scope;
    if (req.action !== 'trigger') await scope.spend();
    const unchanged: number[] = [];
    for (const timer of timers) {
      if (!(await this.one(acting, req, timer))) unchanged.push(timer.id);
    }
    return {
      action: req.action,
      batchId: scope.author?.batchId ?? null,
      selected: ids.length,
      changed: ids.length - unchanged.length,
      unchanged,
    };
  }

  /** Whether the action changed this timer. */
  private async one(scope: AccessScope, req: SelectionRequest, timer: Timer): Promise<boolean> {
    switch (req.action) {
      case 'pause':
        if (timer.status !== 'active') return false;
        return (
          (await this.lifecycle.disableAs(timer.app, timer.id, scope.author, req.pause)).status === 'inactive'
        );
      case 'resume': {
        if (timer.status !== 'inactive') return false;
        const resumed = await this.lifecycle.enableAs(timer.id, scope.author).catch((err: unknown) => {
          if (err instanceof XtimerError && err.code === ErrorCode.TIMER_COMPLETED) return null;
          throw err;
        });
        return resumed?.status === 'active';
      }
      case 'trigger':
        await this.runs.trigger(scope, timer.id);
        return true;
    }
  }
}
