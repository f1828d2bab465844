import { withDeadline } from './lib/with-deadline.js';
import type { Logger } from './observability/logger.js';

/** A shutdown step taking this long is logged at info. */
const SLOW_STEP_MS = 1000;
/** Each step past the deadline still gets this long (closing connections). */
const LAST_STEP_MS = 1000;
/** How long a second signal waits for the steps to keep what they can. */
const ABANDON_MS = 2000;

/** What a step reports it left behind when a second signal cuts the shutdown short. */
export type Abandoned = Record<string, unknown>;

interface Step {
  name: string;
  stop: () => Promise<void> | void;
  /** Keeps what it quickly can (outcomes to Redis) and says what it leaves behind. */
  abandon?: (() => Promise<Abandoned>) | undefined;
  /** A thread's steps stand behind this one: what it abandons is theirs, by their names. */
  thread?: boolean;
}

/**
 * Ordered graceful shutdown: steps registered while starting up run in reverse (stop
 * taking work first, close connections last), all within one grace period, so a step
 * that waits for calls in flight gets the time they may take (SHUTDOWN_GRACE_MS).
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private readonly stopped = new Set<Step>();
  private current: Step | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly graceMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  add(name: string, stop: Step['stop'], abandon?: Step['abandon']): void {
    this.steps.push({ name, stop, abandon });
  }

  /** A step that stops another thread's roles; its abandon answers for each of its steps. */
  addThread(name: string, stop: Step['stop'], abandon: () => Promise<Record<string, Abandoned>>): void {
    this.steps.push({ name, stop, abandon, thread: true });
  }

  /** Runs every step once, newest first; later calls wait for the first. */
  run(reason: string): Promise<void> {
    this.running ??= this.runSteps(reason);
    return this.running;
  }

  /**
   * A second signal during the shutdown: each step not yet stopped keeps what it can
   * within 2 s and says what it leaves behind, and that is logged before the caller exits.
   */
  async abandon(reason: string): Promise<void> {
    const notStopped = this.notStopped().map((s) => s.name);
    const abandoned = await this.keep();
    this.logger.warn(
      { reason, during: this.current?.name ?? null, notStopped, abandoned },
      'second signal: exiting without waiting for the rest of the shutdown',
    );
  }

  /** Each step not yet stopped keeps what it can within `withinMs`; what each leaves behind, by step. */
  async keep(withinMs = ABANDON_MS): Promise<Record<string, Abandoned>> {
    const abandoned: Record<string, Abandoned> = {};
    await withDeadline(
      Promise.all(
        this.notStopped().map(async (s) => {
          if (!s.abandon) return;
          const kept = await s.abandon().catch((err) => ({ error: String(err) }));
          if (s.thread) Object.assign(abandoned, kept);
          else abandoned[s.name] = kept;
        }),
      ),
      withinMs,
    ).catch(() => undefined);
    return abandoned;
  }

  /** The steps not stopped yet, newest first. */
  private notStopped(): Step[] {
    return [...this.steps].reverse().filter((s) => !this.stopped.has(s));
  }

  private async runSteps(reason: string): Promise<void> {
    const deadline = this.now() + this.graceMs;
    this.logger.info({ reason, graceMs: this.graceMs }, 'shutting down');
    for (const step of [...this.steps].reverse()) {
      const started = this.now();
      this.current = step;
      try {
        await withDeadline(Promise.resolve().then(step.stop), Math.max(LAST_STEP_MS, deadline - started));
        const ms = this.now() - started;
        // A slow step is what keeps a process from exiting in time: say which one it was.
        if (ms >= SLOW_STEP_MS) this.logger.info({ step: step.name, ms }, 'stopped, slowly');
        else this.logger.debug({ step: step.name, ms }, 'stopped');
      } catch (err) {
        this.logger.warn({ step: step.name, err }, 'shutdown step failed');
      } finally {
        this.stopped.add(step);
      }
    }
    this.current = null;
    this.logger.info('shut down');
  }
}
