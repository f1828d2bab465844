/**
 * The earliest `limit` instants of a window, gathered day by day. Days on which the zone's
 * offset changes give theirs out of order (a repeated hour, a skipped one), so once
 * `limit` are known the latest of them becomes the `cut`: nothing later can be among the
 * earliest, and an expansion stops building instants past it.
 */
export class EarliestInstants {
  private readonly out: number[] = [];
  /** Past this no instant can be among the earliest `limit` (infinite until that many are known). */
  cut = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private unsorted = false;
  /** When to sort and trim again: at `limit`, then at twice it, so trimming costs O(log n) a push. */
  private trimAt: number;

  constructor(readonly limit: number) {
    this.trimAt = limit;
  }

  get size(): number {
    return this.out.length;
  }

  add(t: number): void {
    if (t > this.cut) return;
    // Equal counts as out of order: a skipped wall time can resolve onto a real one.
    if (t <= this.last) this.unsorted = true;
    this.last = t;
    this.out.push(t);
    if (this.out.length >= this.trimAt) this.trim();
  }

  /** The earliest `limit`, ascending and unique. */
  result(): number[] {
    if (this.unsorted) sortUnique(this.out);
    if (this.out.length > this.limit) this.out.length = this.limit;
    return this.out;
  }

  private trim(): void {
    sortUnique(this.out);
    this.unsorted = false;
    if (this.out.length > this.limit) this.out.length = this.limit;
    this.last = this.out[this.out.length - 1] ?? Number.NEGATIVE_INFINITY;
    if (this.out.length === this.limit) {
      this.cut = this.last;
      this.trimAt = 2 * this.limit;
    } else {
      this.trimAt = this.limit;
    }
  }
}

/** Sorts `out` ascending and drops repeats, in place. */
function sortUnique(out: number[]): void {
  out.sort((a, b) => a - b);
  let w = 0;
  for (let r = 0; r < out.length; r++) {
    if (r === 0 || out[r] !== out[r - 1]) out[w++] = out[r] as number;
  }
  out.length = w;
}
