/**
 * The per-app in-flight limit (fairness between apps): at most `perApp` callbacks of one app
 * in flight in this process. A run over the limit waits for its app's next free slot, in
 * due order, without holding an executor slot, so one app's hanging receivers delay
 * only that app's runs.
 */
export class AppSlots {
  private readonly inFlight = new Map<string, number>();
  private readonly queues = new Map<string, Array<{ since: number; resolve(taken: boolean): void }>>();
  private queued = 0;
  private closed = false;

  constructor(
    readonly perApp: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a slot of `app` at once if one is free. */
  tryTake(app: string): boolean {
    if (this.closed) return false;
    const n = this.inFlight.get(app) ?? 0;
    if (n >= this.perApp || (this.queues.get(app)?.length ?? 0) > 0) return false;
    this.inFlight.set(app, n + 1);
    return true;
  }

  /** Waits for a slot of `app`: true once taken, false if the slots were closed (shutdown). */
  take(app: string): Promise<boolean> {
    if (this.tryTake(app)) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const queue = this.queues.get(app) ?? [];
      queue.push({ since: this.now(), resolve });
      this.queues.set(app, queue);
      this.queued++;
    });
  }

  /** Gives a slot back; the app's longest waiting run gets it. */
  give(app: string): void {
    const queue = this.queues.get(app);
    const next = queue?.shift();
    if (next) {
      this.queued--;
      if (queue!.length === 0) this.queues.delete(app);
      next.resolve(true);
      return;
    }
    const n = (this.inFlight.get(app) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(app);
    else this.inFlight.set(app, n);
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    return this.queued;
  }

  /** When the longest-waiting run started waiting (null if none waits). */
  oldestWaitSince(): number | null {
    let oldest: number | null = null;
    for (const queue of this.queues.values()) {
      const first = queue[0];
      if (first && (oldest === null || first.since < oldest)) oldest = first.since;
    }
    return oldest;
  }

  /** Stops handing out slots; every waiting run is told to give up (it is withdrawn). */
  close(): number {
    this.closed = true;
    const n = this.queued;
    for (const queue of this.queues.values()) for (const w of queue) w.resolve(false);
    this.queues.clear();
    this.queued = 0;
    return n;
  }
}
