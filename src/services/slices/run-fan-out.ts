import type { QueuedRun } from '../../storage/redis/queues.js';

/** How long the runs of concurrent walks are gathered before they are queued together. */
export const FAN_OUT_GATHER_MS = 10;

interface Waiting {
  runs: readonly QueuedRun[];
  slice: string;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Queues the runs the walks of one process read at about the same time as one fan-out.
 * Every slice's walk reads its next second at the same instant, each ~16 runs at 5,000
 * every-second timers: one batch job per slice was ~300 jobs a second, and a job costs
 * ~0.35 ms of Redis and Node time whatever it carries. Gathered for a few milliseconds
 * (the runs are read 1.5 s ahead), they make a few jobs of up to 500 runs. A walk's call
 * resolves once its runs are queued, as before: it acks its slice only after that.
 */
export class RunFanOut {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly fanOut: (runs: readonly QueuedRun[], slice: string) => Promise<void>,
    private readonly now: () => number = Date.now,
    private readonly gatherMs = FAN_OUT_GATHER_MS,
  ) {}

  /**
   * Queues a walk's runs with the others gathered now (a bound function: a walker's
   * `fanOut`). A read holding runs already due (a walk started late, a takeover) goes out
   * alone and at once, as before: mixed into a job of runs due later, its backlog would
   * not be handed to the catch-up lane.
   */
  readonly queue = (runs: readonly QueuedRun[], slice: string): Promise<void> => {
    const now = this.now();
    if (runs.some((r) => r.runAt <= now)) return this.fanOut(runs, slice);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ runs, slice, resolve, reject });
      this.timer ??= setTimeout(() => this.flush(), this.gatherMs);
    });
  };

  private flush(): void {
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    const [first] = batch;
    if (!first) return;
    // A walk alone keeps its slice's name; gathered runs are named by the first slice and
    // how many others came with it, in time order so each job holds neighbouring instants.
    const runs =
      batch.length === 1 ? first.runs : batch.flatMap((w) => w.runs).sort((a, b) => a.runAt - b.runAt);
    const slice = batch.length === 1 ? first.slice : `${first.slice}+${batch.length - 1}`;
    this.fanOut(runs, slice).then(
      () => {
        for (const w of batch) w.resolve();
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  }
}
