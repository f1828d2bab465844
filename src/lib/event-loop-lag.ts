import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** How long the event loop stalled at most since the last look. */
export interface LagSource {
  start(): void;
  /** The longest stall since the last call (or the start), in ms. */
  sinceLastLook(): number;
  stop(): void;
}

/** The process's event-loop delay, sampled every 10 ms (node:perf_hooks). */
export class EventLoopLag implements LagSource {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  start(): void {
    this.delay.enable();
  }

  sinceLastLook(): number {
    const lagMs = this.delay.max / 1e6;
    this.delay.reset();
    return lagMs;
  }

  stop(): void {
    this.delay.disable();
  }
}
