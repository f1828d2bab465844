/**
 * Coalesces single-item requests made in the same tick into one batch call: many runs
 * become one SQL query or one Redis command instead of one round trip each.
 */
export class MicroBatcher<I, O> {
  private queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 1000,
  ) {}

  load(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) return;
    this.run(batch.map((b) => b.item)).then(
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
