import type { Logger } from '../observability/logger.js';

/**
 * An aligned duty runs this long after its boundary (a window's or a minute's start), so
 * that the boundary has passed on every process's clock and its work is due.
 */
export const AFTER_BOUNDARY_MS = 1000;

/** The timer functions a duty is re-armed with (setTimeout's, or a test's). */
export interface DutyTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const NODE_TIMERS: DutyTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface DutySchedule {
  /** The longest wait between the end of one run and the start of the next. */
  periodMs: number;
  /**
   * When set, the next run starts AFTER_BOUNDARY_MS past the next multiple of this (a
   * window or minute boundary), or after periodMs if that is sooner.
   */
  alignToMs?: number | undefined;
  /** When set, the wait before the next run, from the end of this one (instead of the above). */
  nextDelayMs?: ((now: number) => number) | undefined;
  /**
   * Consecutive failures are warned of once in this many (1: every one), and the first
   * success after them is logged; a duty failing every tick does not flood the log.
   */
  warnEveryFailures?: number | undefined;
}

/** The wait from `now` until the next run of `schedule`, from the end of the previous one. */
export function nextRunDelayMs(schedule: DutySchedule, now: number): number {
  if (schedule.nextDelayMs) return schedule.nextDelayMs(now);
  if (!schedule.alignToMs) return schedule.periodMs;
  const toBoundary = schedule.alignToMs - (now % schedule.alignToMs) + AFTER_BOUNDARY_MS;
  return Math.min(toBoundary, schedule.periodMs);
}

export interface PeriodicDutiesDeps {
  logger: Logger;
  now(): number;
  timers?: DutyTimers | undefined;
}

/**
 * Recurring duties of a role (the migrator's checks, the scheduler's tick): each runs at
 * once, then again after its schedule's wait from the end of the previous run, so a run
 * never overlaps its predecessor. A failure is logged and the duty keeps its schedule.
 * stop() cancels what is armed and waits for the runs under way.
 */
export class PeriodicDuties {
  private running = true;
  private readonly armed = new Map<string, unknown>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers: DutyTimers;

  constructor(private readonly d: PeriodicDutiesDeps) {
    this.timers = d.timers ?? NODE_TIMERS;
  }

  every(name: string, schedule: DutySchedule, duty: () => Promise<unknown>): void {
    const warnEvery = Math.max(1, schedule.warnEveryFailures ?? 1);
    let failures = 0;
    const run = (): void => {
      if (!this.running) return;
      this.armed.delete(name);
      const current: Promise<void> = duty()
        .then(() => {
          if (failures > 0 && warnEvery > 1) this.d.logger.info({ task: name }, `${name} works again`);
          failures = 0;
        })
        .catch((err: unknown) => {
          if (failures++ % warnEvery === 0)
            this.d.logger.warn({ task: name, err: (err as Error).message }, `${name} failed; will retry`);
        })
        .finally(() => {
          this.inFlight.delete(current);
          if (!this.running) return;
          this.armed.set(name, this.timers.set(run, nextRunDelayMs(schedule, this.d.now())));
        });
      this.inFlight.add(current);
    };
    run();
  }

  /** Cancels every armed run and waits for those under way. */
  async stop(): Promise<void> {
    this.running = false;
    for (const handle of this.armed.values()) this.timers.clear(handle);
    this.armed.clear();
    await Promise.all(this.inFlight);
  }
}
