import type { PauseRequest } from '../../domain/timer.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import { forEachConcurrently } from '../../lib/for-each-concurrently.js';
import type { AccessScope } from './access.js';
import type { TimerLifecycle } from './timer-lifecycle.js';
import type { TimerStore } from './timer-store.js';

/**
 * Timers of one app disabled or enabled at once: each waits for its copy in Redis, so one
 * after the other an app of a thousand timers would take a thousand of those waits.
 */
const AT_ONCE = 8;

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
    await forEachConcurrently(await this.store.timers.idsOfApp(app, 'active'), AT_ONCE, async (id) => {
      if ((await this.lifecycle.disableAs(app, id, scope.author, pause)).status === 'inactive') n++;
    });
    return n;
  }

  /** Enables every disabled timer of `app` that has runs left; returns how many. */
  async resume(scope: AccessScope, app: string): Promise<number> {
    scope.useApp(app);
    await scope.spend();
    let n = 0;
    await forEachConcurrently(await this.store.timers.idsOfApp(app, 'inactive'), AT_ONCE, async (id) => {
      const timer = await this.lifecycle.enableAs(id, scope.author).catch((err: unknown) => {
        if (err instanceof XtimerError && err.code === ErrorCode.TIMER_COMPLETED) return null;
        throw err;
      });
      if (timer?.status === 'active') n++;
    });
    return n;
  }
}
