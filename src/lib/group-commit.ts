/**
 * Coalesces concurrent single-item calls into batches, a few batches in flight at a
 * time: items arriving while those are stored wait and go together in the next one.
 * Alone, an item goes at once; under load the batches grow with the load, and the round
 * trips of one batch serve all its items (group commit, as databases do for their log).
 */
export class GroupCommit<I, O> {
  private waiting: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;

  /** @param run settles every item of a batch: its value, or why it alone failed. */
  constructor(
    private readonly run: (items: I[]) => Promise<Array<PromiseSettledResult<O>>>,
    private readonly maxBatch: number,
    private readonly maxInFlight: number,
  ) {}

  /** Whether an item added now goes at once rather than waiting behind others. */
  get idle(): boolean {
    return this.inFlight < this.maxInFlight && this.waiting.length === 0;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inFlight++;
      this.run(batch.map((b) => b.item))
        .then(
          (results) =>
            batch.forEach((b, i) => {
              const r = results[i]!;
              if (r.status === 'fulfilled') b.resolve(r.value);
              else b.reject(r.reason);
            }),
          (err) => {
            for (const b of batch) b.reject(err);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.drain();
        });
    }
  }
}
