import { taskKey } from '../../../domain/plan/task-key.js';
import type { Logger } from '../../../observability/logger.js';
import type { RunOutcome } from '../../../storage/db/tasks/task-repository.js';
import type { FinalStatus } from '../../../storage/redis/runs/claim-record.js';
import type { OutcomeStash } from '../../../storage/redis/runs/outcome-stash.js';

export interface RunRecorderOptions {
  flushEveryMs: number;
  batchSize: number;
  /** Beyond this many unwritten outcomes (MySQL down for long), the oldest are left to the stash alone. */
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
 * Batched result writes. Outcomes are buffered and written together; a run's later
 * state replaces an earlier unwritten one. When a write fails (MySQL unavailable) the
 * outcomes stay buffered and retried, and are copied to the stash in Redis, so they
 * land even if this process dies first: whoever drains the stash writes them.
 */
export class RunRecorder {
  private buffer = new Map<string, RunOutcome>();
  /** The batch a flush is writing, out of the buffer until MySQL has it. */
  private writing: ReadonlyArray<[string, RunOutcome]> = [];
  /** In-flight states by task key, oldest first, with when each was recorded. */
  private inFlight = new Map<string, { outcome: () => RunOutcome; at: number }>();
  private inFlightTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private failingSince: number | null = null;
  /** Task keys whose buffered outcome is in the stash too (removed from it once written). */
  private readonly stashed = new Set<string>();
  private overflowed = 0;
  private readonly options: RunRecorderOptions;

  constructor(
    private readonly write: (outcomes: RunOutcome[]) => Promise<void>,
    private readonly logger: Logger,
    options: Partial<RunRecorderOptions> = {},
    private readonly stash?: Pick<OutcomeStash, 'put' | 'remove'>,
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** How long writes have been failing without one succeeding (0 while they succeed). */
  failingFor(now = Date.now()): number {
    return this.failingSince === null ? 0 : now - this.failingSince;
  }

  /**
   * A state the run is passing through (a callback in flight): written only if no newer
   * state replaces it within `inFlightHoldMs`. Most calls answer sooner, so a run costs
   * MySQL one write, not two; a slow call still shows `running` with its lease. The state
   * is built only then: an instant's thousands of calls go out with none of that work.
   */
  recordInFlight(key: string, outcome: () => RunOutcome): void {
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
      // MySQL has been away for long: the oldest lives on in the stash only (bounded memory).
      const [oldestKey, oldest] = this.buffer.entries().next().value as [string, RunOutcome];
      this.buffer.delete(oldestKey);
      if (!this.stashed.delete(oldestKey)) void this.toStash([oldest]);
      this.overflowed++;
      if (this.overflowed === 1 || this.overflowed % 10_000 === 0) {
        this.logger.warn(
          { overflowed: this.overflowed },
          'run outcomes past the buffer are kept in Redis only until MySQL takes them',
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

  /**
   * The finished runs whose outcome is not written yet, as their claim records hold them:
   * the attempt claimed (a run settled without a call claimed one past its calls).
   */
  finishedUnwritten(): Array<{ key: string; runAt: number; attempt: number; status: FinalStatus }> {
    const out: Array<{ key: string; runAt: number; attempt: number; status: FinalStatus }> = [];
    const add = (key: string, o: RunOutcome) => {
      if (o.status === 'pending' || o.status === 'running') return;
      const attempt = o.status === 'skipped' || o.status === 'missed' ? o.attempts + 1 : o.attempts;
      out.push({ key, runAt: o.runAt, attempt, status: o.status });
    };
    for (const [key, o] of this.buffer) add(key, o);
    // The batch being written is unwritten until MySQL has it: under load that takes seconds.
    for (const [key, o] of this.writing) if (!this.buffer.has(key)) add(key, o);
    return out;
  }

  /**
   * Redis lost its data, the stash with it: what this recorder stashed is stashed again
   * (the in-flight states first become outcomes to write, as flushInFlight does).
   */
  async restash(): Promise<void> {
    this.promoteInFlight(Number.POSITIVE_INFINITY);
    this.stashed.clear();
    if (this.failures > 0) await this.toStash([...this.buffer.values()]);
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

  /**
   * Final flush on shutdown: keeps trying until `deadlineMs` passes, then hands what is
   * left to the stash for the next process. Returns how many outcomes were left.
   */
  async stop(deadlineMs = 5000): Promise<number> {
    if (this.inFlightTimer) clearTimeout(this.inFlightTimer);
    this.inFlightTimer = null;
    this.promoteInFlight(Number.POSITIVE_INFINITY);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const until = Date.now() + deadlineMs;
    while (this.buffer.size > 0 && Date.now() < until) {
      await this.flush().catch(() => new Promise((r) => setTimeout(r, 200)));
    }
    return this.handOver();
  }

  /**
   * Puts every unwritten outcome in the stash now (a second signal: no time to wait for
   * MySQL). Returns how many could not be kept anywhere.
   */
  async handOver(): Promise<number> {
    this.promoteInFlight(Number.POSITIVE_INFINITY);
    const left = [...this.buffer.values()];
    if (left.length === 0) return 0;
    if (await this.toStash(left)) {
      this.logger.warn(
        { stashed: left.length },
        'run outcomes handed to Redis for the next process to write',
      );
      return 0;
    }
    this.logger.error({ unwritten: left.length }, 'run outcomes not written at shutdown');
    return left.length;
  }

  /** Copies outcomes to the stash; false if there is none or Redis refused. */
  private async toStash(outcomes: readonly RunOutcome[]): Promise<boolean> {
    if (!this.stash || outcomes.length === 0) return false;
    try {
      await this.stash.put(outcomes);
      for (const o of outcomes) this.stashed.add(taskKey(o.timerId, o.runAt));
      return true;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'cannot stash run outcomes in Redis either');
      return false;
    }
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
      this.record(outcome());
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
    this.writing = batch;
    try {
      await this.write(batch.map(([, o]) => o));
      if (this.failures > 0)
        this.logger.info({ after: this.failures }, 'run outcomes are being written again');
      this.failures = 0;
      this.failingSince = null;
    } catch (err) {
      // Put them back unless a newer outcome arrived meanwhile.
      for (const [key, outcome] of batch) if (!this.buffer.has(key)) this.buffer.set(key, outcome);
      this.failures++;
      this.failingSince ??= Date.now();
      if (this.failures === 1 || this.failures % 50 === 0) {
        this.logger.warn(
          { err: (err as Error).message, buffered: this.buffer.size },
          'cannot write run outcomes; will retry',
        );
      }
      // Kept in Redis too: if this process dies before MySQL is back, the next writes them.
      await this.toStash(batch.map(([key]) => this.buffer.get(key)!));
      this.schedule(Math.min(2000, 100 * 2 ** Math.min(this.failures, 5)));
      throw err;
    } finally {
      this.writing = [];
    }
    const written = batch.map(([key]) => key).filter((key) => this.stashed.delete(key));
    if (written.length > 0) await this.stash?.remove(written).catch(() => undefined);
    if (this.buffer.size > 0) this.schedule(0);
  }
}
