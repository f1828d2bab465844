import { TimingWheel } from '../../../domain/plan/timing-wheel.js';

export interface WheelTimerOptions<T> {
  /** Receives every value due at one instant in a single call. */
  onDue: (values: T[]) => void;
  now?: () => number;
  tickMs?: number;
  wheelSize?: number;
  /** Let the process exit while entries are pending (default: keep it alive). */
  unref?: boolean;
}

export interface ScheduledRelease {
  /** True if the value was still pending; it will then never be delivered. */
  cancel(): boolean;
}

/** setTimeout's largest delay; a later expiration is reached by re-arming. */
const MAX_TIMEOUT_MS = 2_147_483_647;

interface OverdueItem<T> {
  value: T;
  pending: boolean;
}

/**
 * Drives a TimingWheel (src/domain/plan/timing-wheel.ts) in real time: one Node timer armed
 * for its next expiration, whatever the number of entries, and
 * delivers what is due in one `onDue` call per wake-up.
 */
export class WheelTimer<T> {
  readonly #wheel: TimingWheel<T>;
  readonly #onDue: (values: T[]) => void;
  readonly #now: () => number;
  readonly #unref: boolean;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #armedFor = Number.POSITIVE_INFINITY;
  #overdue: OverdueItem<T>[] = [];
  #overduePending = 0;
  #immediate: ReturnType<typeof setImmediate> | null = null;
  #stopped = false;

  constructor(options: WheelTimerOptions<T>) {
    this.#onDue = options.onDue;
    this.#now = options.now ?? (() => Date.now());
    this.#unref = options.unref ?? false;
    this.#wheel = new TimingWheel<T>({
      startMs: this.#now(),
      ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
      ...(options.wheelSize === undefined ? {} : { wheelSize: options.wheelSize }),
    });
  }

  /** Values scheduled and neither delivered nor cancelled. */
  get size(): number {
    return this.#wheel.size + this.#overduePending;
  }

  /** When the next values are due, no later (overdue ones: now); null if none is held. */
  nextDue(): number | null {
    return this.#overduePending > 0 ? this.#now() : this.#wheel.nextExpiration();
  }

  /** Delivers `value` at `dueMs`, or promptly if that has already passed. */
  schedule(dueMs: number, value: T): ScheduledRelease {
    if (this.#stopped) throw new Error('WheelTimer is stopped');
    const now = this.#now();
    // An idle wheel's time may be far behind; catching up is free while it is empty
    // and lets new entries land in the finest level.
    if (this.#wheel.size === 0) this.#wheel.advance(now);
    const entry = dueMs <= now ? null : this.#wheel.add(dueMs, value);
    // null also if now() stepped back behind the wheel's time: the wheel holds that
    // time as passed, so the value counts as overdue.
    if (entry === null) return this.#scheduleOverdue(value);
    const next = this.#wheel.nextExpiration();
    if (next !== null && next < this.#armedFor) this.#arm();
    return {
      cancel: () => {
        const cancelled = entry.cancel();
        if (cancelled && this.size === 0) this.#disarm();
        return cancelled;
      },
    };
  }

  /** Stops for good and returns the values not yet delivered, overdue ones first. */
  stop(): T[] {
    this.#stopped = true;
    this.#disarm();
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#immediate = null;
    const pending = this.#takeOverdue();
    for (const value of this.#wheel.drain()) pending.push(value);
    return pending;
  }

  #scheduleOverdue(value: T): ScheduledRelease {
    const item: OverdueItem<T> = { value, pending: true };
    this.#overdue.push(item);
    this.#overduePending++;
    // One setImmediate per batch: a loop scheduling many overdue runs (a takeover)
    // gets them all in one onDue call.
    this.#immediate ??= setImmediate(this.#flushOverdue);
    return {
      cancel: () => {
        if (!item.pending) return false;
        item.pending = false;
        this.#overduePending--;
        return true;
      },
    };
  }

  #takeOverdue(): T[] {
    const values: T[] = [];
    for (const item of this.#overdue) {
      if (!item.pending) continue;
      item.pending = false;
      values.push(item.value);
    }
    this.#overdue = [];
    this.#overduePending = 0;
    return values;
  }

  readonly #flushOverdue = (): void => {
    this.#immediate = null;
    const values = this.#takeOverdue();
    if (values.length > 0) this.#onDue(values);
  };

  readonly #fire = (): void => {
    this.#timer = null;
    this.#armedFor = Number.POSITIVE_INFINITY;
    // advance() only returns what is due by now(), so a timer that woke early
    // releases nothing and is simply re-armed.
    const values = this.#wheel.advance(this.#now());
    // Re-arm before delivering, so a throwing onDue cannot stall the wheel.
    this.#arm();
    if (values.length > 0) this.#onDue(values);
  };

  #arm(): void {
    this.#disarm();
    const next = this.#wheel.nextExpiration();
    if (next === null || this.#stopped) return;
    const now = this.#now();
    const delay = Math.min(Math.max(0, next - now), MAX_TIMEOUT_MS);
    this.#armedFor = now + delay;
    const timer = setTimeout(this.#fire, delay);
    if (this.#unref) timer.unref();
    this.#timer = timer;
  }

  #disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedFor = Number.POSITIVE_INFINITY;
  }
}
