import type { PauseRequest } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import type { AccessScope } from './access.js';
import type { TimerLifecycle } from './timer-lifecycle.js';
import type { TimerStore } from './timer-store.js';

/**
 * An app's pause: every active timer of the app disabled with one note (and `until`), or
 * every disabled one enabled again, each as its own disable or enable. One call of the
 * rate limit for the whole app.
 */
export class AppPause {
  constructor(
    private readonly store: TimerStore,
    private readonly lifecycle: Pick<TimerLifecycle, 'enableAs' | 'disableAs'>,
  ) {}

  /** Disables every active timer of `app` with one note (and `until`); returns how many. */
  async pause(scope: AccessScope, app: string, pause: PauseRequest): Promise<number> {
    scope.useApp(app);
    await scope.spend();
    let n = 0;
    for (const id of await this.store.timers.idsOfApp(app, 'active')) {
      if ((await this.lifecycle.disableAs(id, scope.author, pause)).status === 'inactive') n++;
    }
    return n;
  }

  /** Enables every disabled timer of `app` that has runs left; returns how many. */
  async resume(scope: AccessScope, app: string): Promise<number> {
    scope.useApp(app);
    await scope.spend();
    let n = 0;
    for (const id of await this.store.timers.idsOfApp(app, 'inactive')) {
      const timer = await this.lifecycle.enableAs(id, scope.author).catch((err: unknown) => {
        if (err instanceof XtimerError && err.code === ErrorCode.TIMER_COMPLETED) return null;
        throw err;
      });
      if (timer?.status === 'active') n++;
    }
    return n;
  }
}
