import { isLostConnection } from '../../observability/connection-log.js';
import type { Logger } from '../../observability/logger.js';

/** Where the duties' next passes are scheduled: the process's timers, or a test's. */
export interface DutyTimers {
  now(): number;
  /** Calls `fn` after `ms`; the returned function cancels it. */
  schedule(fn: () => void, ms: number): () => void;
}

const PROCESS_TIMERS: DutyTimers = {
  now: Date.now,
  schedule(fn, ms) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** A failing duty is logged on its first failure and then every this many. */
const LOG_FAILURE_EVERY = 30;

/**
 * The migrator's duties, each on its own clock: a pass at once, the next one a period
 * after it ends (or just after a boundary), never two passes of one duty at a time.
 */
export class RecurringDuties {
  private running = true;
  private readonly pending = new Map<string, () => void>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly timers: DutyTimers = PROCESS_TIMERS,
  ) {}

  /**
   * Runs `fn` now and again `periodMs` after each pass ends; with `alignTo`, a second after
   * the next multiple of it instead, if that comes sooner.
   */
  every(name: string, periodMs: number, fn: () => Promise<unknown>, alignTo?: number): void {
    const { logger, timers } = this;
    // A store away for a while fails every pass: said once, then every 30th time, and when it works again.
    let failures = 0;
    const run = () => {
      if (!this.running) return;
      const p = fn()
        .then(() => {
          if (failures > 0) logger.info({ task: name, failures }, `${name} works again`);
          failures = 0;
        })
        .catch((err) => {
          // A lost connection is the connection log's to say, once for every task.
          if (isLostConnection(err)) {
            logger.debug({ task: name, err: (err as Error).message }, `${name} failed; will retry`);
            return;
          }
          if (failures++ % LOG_FAILURE_EVERY === 0)
            logger.warn({ task: name, err: (err as Error).message, failures }, `${name} failed; will retry`);
        })
        .finally(() => {
          this.inFlight.delete(p);
          if (!this.running) return;
          const delay = alignTo ? alignTo - (timers.now() % alignTo) + 1000 : periodMs;
          this.pending.set(name, timers.schedule(run, Math.min(delay, periodMs)));
        });
      this.inFlight.add(p);
    };
    run();
  }

  /** Schedules no more passes and waits for those under way. */
  async stop(): Promise<void> {
    this.running = false;
    for (const cancel of this.pending.values()) cancel();
    await Promise.all(this.inFlight);
  }
}
