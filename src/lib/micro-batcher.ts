/**
 * Coalesces single-item requests made in the same tick into one batch call: many runs
 * become one SQL query or one Redis command instead of one round trip each.
 */
export class MicroBatcher<I, O> {
  private queue: Array<{
    item: I;
    resolve: (o: O) => void;
    reject: (e: unknown) => void;
    onSent?: () => void;
  }> = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 1000,
  ) {}

  load(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => this.enqueue({ item, resolve, reject }));
  }

  /**
   * As `load`; `sent` settles once the item's batch call has been made (a request it
   * makes synchronously is written), for a caller that needs it on its way, not answered.
   */
  loadSent(item: I): { sent: Promise<void>; result: Promise<O> } {
    let onSent!: () => void;
    const sent = new Promise<void>((r) => (onSent = r));
    const result = new Promise<O>((resolve, reject) => this.enqueue({ item, resolve, reject, onSent }));
    return { sent, result };
  }

  private enqueue(entry: (typeof this.queue)[number]): void {
    this.queue.push(entry);
    if (this.queue.length >= this.maxBatch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) return;
    const running = this.run(batch.map((b) => b.item));
    for (const b of batch) b.onSent?.();
    running.then(
      (results) => {
        batch.forEach((b, i) => {
          b.resolve(results[i] as O);
        });
      },
      (err) => {
        for (const b of batch) b.reject(err);
      },
    );
  }
}
