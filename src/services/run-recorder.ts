import { taskKey } from '../domain/task-key.js';
import type { Logger } from '../observability/logger.js';
import type { RunOutcome } from '../storage/db/task-repository.js';

export interface RunRecorderOptions {
  flushEveryMs: number;
  batchSize: number;
  /** Beyond this many unwritten outcomes (MySQL down for long), the oldest are dropped and logged. */
  maxBuffered: number;
  /** How long an in-flight state waits to be superseded before it is written after all. */
  inFlightHoldMs: number;
}

const DEFAULTS: RunRecorderOptions = {
  flushEveryMs: 100,
  batchSize: 1000,
  maxBuffered: 1_000_000,
  inFlightHoldMs: 1000,
};

/**
 * Batched result writes (SPEC §5.5). Outcomes are buffered and written together;
 * a run's later state replaces an earlier unwritten one. When MySQL is unavailable
 * the buffer is kept and retried, so results land once it is back.
 */
export class RunRecorder {
  private buffer = new Map<string, RunOutcome>();
  /** In-flight states by task key, oldest first, with when each was recorded. */
  private inFlight = new Map<string, { outcome: RunOutcome; at: number }>();
  private inFlightTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private dropped = 0;
  private readonly options: RunRecorderOptions;

  constructor(
    private readonly write: (outcomes: RunOutcome[]) => Promise<void>,
    private readonly logger: Logger,
    options: Partial<RunRecorderOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * A state the run is passing through (a callback in flight): written only if no newer
   * state replaces it within `inFlightHoldMs`. Most calls answer sooner, so a run costs
   * MySQL one write, not two; a slow call still shows `running` with its lease.
   */
  recordInFlight(outcome: RunOutcome): void {
    const key = taskKey(outcome.timerId, outcome.runAt);
    this.inFlight.delete(key);
    this.inFlight.set(key, { outcome, at: Date.now() });
    if (!this.inFlightTimer) this.scheduleInFlight();
  }

  record(outcome: RunOutcome): void {
    const key = taskKey(outcome.timerId, outcome.runAt);
    this.inFlight.delete(key);
    this.buffer.delete(key);
    this.buffer.set(key, outcome);
    if (this.buffer.size > this.options.maxBuffered) {
      const oldest = this.buffer.keys().next().value as string;
      this.buffer.delete(oldest);
      // The claim record still holds the outcome: the compensator settles the run from it.
      this.dropped++;
      if (this.dropped === 1 || this.dropped % 10_000 === 0) {
        this.logger.error(
          { taskKey: oldest, dropped: this.dropped },
          'run outcome dropped: result buffer full while MySQL is unavailable or too slow',
        );
      }
    }
    this.schedule(this.buffer.size >= this.options.batchSize ? 0 : this.options.flushEveryMs);
  }

  /**
   * Writes every in-flight state now rather than after its hold: Redis may have lost the
   * claims, and MySQL must show these runs running before copies fanned out again ask it.
   */
  flushInFlight(): void {
    this.promoteInFlight(Number.POSITIVE_INFINITY);
  }

  get buffered(): number {
    return this.buffer.size + this.inFlight.size;
  }

  /** Writes everything buffered so far (waits for a flush already under way). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.size === 0) return;
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  /** Final flush on shutdown: keeps trying until `deadlineMs` passes. */
  async stop(deadlineMs = 5000): Promise<void> {
    if (this.inFlightTimer) clearTimeout(this.inFlightTimer);
    this.inFlightTimer = null;
    this.promoteInFlight(Number.POSITIVE_INFINITY);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const until = Date.now() + deadlineMs;
    while (this.buffer.size > 0 && Date.now() < until) {
      await this.flush().catch(() => new Promise((r) => setTimeout(r, 200)));
    }
    if (this.buffer.size > 0)
      this.logger.error({ unwritten: this.buffer.size }, 'run outcomes not written at shutdown');
  }

  /** Wakes when the oldest in-flight state has waited its hold out. */
  private scheduleInFlight(): void {
    const oldest = this.inFlight.values().next().value;
    if (!oldest) return;
    const delay = Math.max(0, oldest.at + this.options.inFlightHoldMs - Date.now());
    this.inFlightTimer = setTimeout(() => {
      this.inFlightTimer = null;
      this.promoteInFlight(Date.now() - this.options.inFlightHoldMs);
      this.scheduleInFlight();
    }, delay);
  }

  /** Buffers for writing the in-flight states recorded at or before `cutoff`. */
  private promoteInFlight(cutoff: number): void {
    for (const [key, { outcome, at }] of this.inFlight) {
      if (at > cutoff) break;
      this.inFlight.delete(key);
      this.record(outcome);
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch(() => undefined);
    }, delayMs);
  }

  private async flushOnce(): Promise<void> {
    // The oldest, without copying the whole buffer (it can hold a million outcomes during an outage).
    const batch: Array<[string, RunOutcome]> = [];
    for (const entry of this.buffer) {
      if (batch.length >= this.options.batchSize * 10) break;
      batch.push(entry);
    }
    for (const [key] of batch) this.buffer.delete(key);
    try {
      await this.write(batch.map(([, o]) => o));
      if (this.failures > 0)
        this.logger.info({ after: this.failures }, 'run outcomes are being written again');
      this.failures = 0;
    } catch (err) {
      // Put them back unless a newer outcome arrived meanwhile.
      for (const [key, outcome] of batch) if (!this.buffer.has(key)) this.buffer.set(key, outcome);
      this.failures++;
      if (this.failures === 1 || this.failures % 50 === 0) {
        this.logger.warn(
          { err: (err as Error).message, buffered: this.buffer.size },
          'cannot write run outcomes; will retry',
        );
      }
      this.schedule(Math.min(2000, 100 * 2 ** Math.min(this.failures, 5)));
      throw err;
    }
    if (this.buffer.size > 0) this.schedule(0);
  }
}
