import type { Logger } from './observability/logger.js';

/** A shutdown step taking this long is logged at info. */
const SLOW_STEP_MS = 1000;

interface Step {
  name: string;
  stop: () => Promise<void> | void;
}

/**
 * Ordered graceful shutdown: steps registered while starting up run in reverse
 * (stop taking work first, close connections last), each bounded in time.
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly stepTimeoutMs = 10_000,
  ) {}

  add(name: string, stop: Step['stop']): void {
    this.steps.push({ name, stop });
  }

  /** Runs every step once, newest first; later calls wait for the first. */
  run(reason: string): Promise<void> {
    this.running ??= this.runSteps(reason);
    return this.running;
  }

  private async runSteps(reason: string): Promise<void> {
    this.logger.info({ reason }, 'shutting down');
    for (const step of [...this.steps].reverse()) {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(step.stop),
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`timed out after ${this.stepTimeoutMs} ms`)),
              this.stepTimeoutMs,
            );
          }),
        ]);
        const ms = Date.now() - started;
        // A slow step is what keeps a process from exiting in time: say which one it was.
        if (ms >= SLOW_STEP_MS) this.logger.info({ step: step.name, ms }, 'stopped, slowly');
        else this.logger.debug({ step: step.name, ms }, 'stopped');
      } catch (err) {
        this.logger.warn({ step: step.name, err }, 'shutdown step failed');
      } finally {
        clearTimeout(timer);
      }
    }
    this.logger.info('shut down');
  }
}
