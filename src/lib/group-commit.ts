/**
 * Coalesces concurrent single-item calls into batches, a few batches in flight at a
 * time: items arriving while those are stored wait and go together in the next one.
 * Alone, an item goes at once; under load the batches grow with the load, and the round
 * trips of one batch serve all its items (group commit, as databases do for their log).
 * `lingerMs` lets a free slot wait that long for its batch to fill while another is under way.
 */
export class GroupCommit<I, O> {
  private waiting: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private lingering: NodeJS.Timeout | undefined;

  /** @param run settles every item of a batch: its value, or why it alone failed. */
  constructor(
    private readonly run: (items: I[]) => Promise<Array<PromiseSettledResult<O>>>,
    private readonly maxBatch: number,
    private readonly maxInFlight: number,
    private readonly lingerMs = 0,
  ) {}

  /** Whether an item added now goes at once rather than waiting behind others. */
  get idle(): boolean {
    const slot = this.inFlight === 0 || (this.lingerMs === 0 && this.inFlight < this.maxInFlight);
    return slot && this.waiting.length === 0;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      // With a batch under way, a free slot waits a moment for its batch to fill: taken at
      // once, each arrival of a steady stream would go alone, a batch's round trips for one item.
      if (this.inFlight > 0 && this.waiting.length < this.maxBatch && this.lingerMs > 0) {
        this.lingering ??= setTimeout(() => {
          this.lingering = undefined;
          if (this.inFlight < this.maxInFlight && this.waiting.length > 0) this.start();
          this.drain();
        }, this.lingerMs);
        return;
      }
      this.start();
    }
  }

  private start(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
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

/**
 * A GroupCommit per key (an app), made on first use: the batches of one key never hold
 * another's items, so one key's slow batches delay no other key's.
 */
export class GroupCommitsByKey<I, O> {
  private readonly groups = new Map<string, GroupCommit<I, O>>();

  constructor(private readonly make: () => GroupCommit<I, O>) {}

  add(key: string, item: I): Promise<O> {
    let group = this.groups.get(key);
    if (!group) {
      group = this.make();
      this.groups.set(key, group);
    }
    return group.add(item);
  }
}
