import type { LagSource } from '../../../lib/event-loop-lag.js';
import type { Logger } from '../../../observability/logger.js';
import { ApiFirst } from './api-first.js';
import { CATCH_UP_LOOK_EVERY_MS, CATCH_UP_MAX_LAG_MS, CatchUpThrottle } from './catch-up-throttle.js';
import { OutageBrake } from './outage-brake.js';

/** A worker of one lane as the throttle sees it (BullMQ's Worker is one). */
export interface LaneWorker {
  /** Stops fetching; jobs already fetched go on. */
  pause(doNotWaitActive: true): Promise<void>;
  resume(): void;
}

export interface LaneFetchingDeps {
  /** The workers of `execute` (the runs due now) and of the catch-up lane `execute-late`. */
  onTime: readonly LaneWorker[];
  late: readonly LaneWorker[];
  lag: LagSource;
  /** Whether this process's API answered a request since the last look (Foreground). */
  busySinceLastLook(): boolean;
  /** How long MySQL has refused outcomes (0 while it takes them). */
  failingFor(): number;
  logger: Logger;
  /** Calls `look` every `ms` until the returned stop is called. */
  repeat?: ((look: () => void, ms: number) => () => void) | undefined;
}

function repeatEvery(look: () => void, ms: number): () => void {
  const timer = setInterval(look, ms);
  return () => clearInterval(timer);
}

/**
 * Which lanes an executor fetches from, looked at every CATCH_UP_LOOK_EVERY_MS: the outage
 * brake stops both, the API's requests stop both while the loop is behind (ApiFirst), the
 * catch-up throttle stops the late one. Jobs already fetched go on in every case.
 */
export class LaneFetching {
  private readonly apiFirst = new ApiFirst(CATCH_UP_MAX_LAG_MS);
  private readonly brake: OutageBrake;
  private readonly catchUp: CatchUpThrottle;
  private lagMs = 0;
  private readonly fetching = { onTime: true, late: true };
  private stopLooks: (() => void) | null = null;

  constructor(private readonly d: LaneFetchingDeps) {
    const apply = () => this.apply();
    this.brake = new OutageBrake({ failingFor: d.failingFor, pause: apply, resume: apply, logger: d.logger });
    this.catchUp = new CatchUpThrottle({ lagSinceLastLook: () => this.lagMs, pause: apply, resume: apply });
  }

  start(): this {
    this.d.lag.start();
    this.stopLooks = (this.d.repeat ?? repeatEvery)(() => this.look(), CATCH_UP_LOOK_EVERY_MS);
    return this;
  }

  stop(): void {
    this.stopLooks?.();
    this.stopLooks = null;
    this.d.lag.stop();
  }

  /** One look at the loop, the API and MySQL; then each lane fetches or not. */
  look(): void {
    this.lagMs = this.d.lag.sinceLastLook();
    this.apiFirst.look(this.lagMs, this.d.busySinceLastLook());
    this.catchUp.look();
    this.brake.look();
    this.apply();
  }

  /** Whether each lane fetches now. */
  get state(): Readonly<{ onTime: boolean; late: boolean }> {
    return { ...this.fetching };
  }

  private apply(): void {
    const onTime = !this.brake.engaged && !this.apiFirst.yielding;
    const late = onTime && !this.catchUp.isPaused;
    const fetch = (lane: readonly LaneWorker[], on: boolean) => {
      for (const w of lane) on ? w.resume() : void w.pause(true);
    };
    if (onTime !== this.fetching.onTime) fetch(this.d.onTime, onTime);
    if (late !== this.fetching.late) fetch(this.d.late, late);
    this.fetching.onTime = onTime;
    this.fetching.late = late;
  }
}
