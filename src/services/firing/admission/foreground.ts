const ANSWERING = 0;
const WAITED = 1;

/**
 * How long a request to an api with a thread of its own may take before the executor
 * yields to it: its controls answer in tens of ms while the stores keep up.
 */
export const OWN_THREAD_PATIENCE_MS = 200;

/**
 * The requests this process's API is answering. An executor that shares the process with
 * the API asks this whether anyone waited for an answer, so that an operator's disables
 * and the console come before late runs: it yields the cores, MySQL and Redis to them.
 * The counts live in shared memory, so an executor in another thread sees them too.
 *
 * On one thread every request counts from its arrival (it waits behind the executor's
 * work at once); an api with a thread of its own counts only a request that has waited
 * `patienceMs`, so the firing goes on while the API answers in time.
 */
export class Foreground {
  readonly shared: SharedArrayBuffer;
  private readonly counts: Int32Array;
  private readonly patienceMs: number;
  private readonly now: () => number;
  private readonly started = new Set<{ at: number }>();
  private watch: NodeJS.Timeout | undefined;

  constructor(options: { shared?: SharedArrayBuffer; patienceMs?: number; now?: () => number } = {}) {
    this.shared = options.shared ?? new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    this.counts = new Int32Array(this.shared);
    this.patienceMs = options.patienceMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  /** Counts a request from its arrival (or once it has waited `patienceMs`) to its answer. */
  async serve<T>(answer: () => Promise<T>): Promise<T> {
    if (this.patienceMs === 0) {
      Atomics.add(this.counts, ANSWERING, 1);
      Atomics.store(this.counts, WAITED, 1);
      try {
        return await answer();
      } finally {
        Atomics.sub(this.counts, ANSWERING, 1);
      }
    }
    const started = { at: this.now() };
    this.started.add(started);
    this.watch ??= setInterval(() => this.check(), this.patienceMs / 2).unref();
    try {
      return await answer();
    } finally {
      this.started.delete(started);
      if (this.now() - started.at >= this.patienceMs) Atomics.store(this.counts, WAITED, 1);
      if (this.started.size === 0) {
        clearInterval(this.watch);
        this.watch = undefined;
      }
    }
  }

  /** Whether a request was answering (or waiting past patience) at any time since the last call. */
  busySinceLastLook(): boolean {
    const waited = Atomics.exchange(this.counts, WAITED, 0) === 1;
    return waited || Atomics.load(this.counts, ANSWERING) > 0;
  }

  /** Marks a request still in flight past patience as waited. */
  private check(): void {
    const now = this.now();
    for (const started of this.started) {
      if (now - started.at >= this.patienceMs) {
        Atomics.store(this.counts, WAITED, 1);
        return;
      }
    }
  }
}
