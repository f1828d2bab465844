/**
 * The in-process hierarchical timing wheel that releases prepared callbacks at their
 * due millisecond (after Kafka's TimingWheel).
 *
 * Why a wheel: the executor holds up to ~10,000 prepared calls at once, often
 * thousands due at the same millisecond, and cancels some of them (a timer disabled).
 * A wheel inserts and cancels in O(1) and hands out a whole millisecond's entries
 * together, while the driver keeps one Node timer armed instead of thousands.
 *
 * Like Kafka, each level's buckets span `tickMs`; what lies beyond a level's
 * `interval` goes to a lazily created overflow level whose tick is that interval, and
 * an expired overflow bucket is re-inserted into the finer levels (cascading). Only
 * non-empty buckets sit in a min-heap of expirations (Kafka's DelayQueue), so a jump
 * far ahead touches the buckets that hold entries, never the empty ticks between.
 */

export interface WheelEntry<T> {
  readonly dueMs: number;
  readonly value: T;
  /** Removes the entry; true if it was still pending (not released, not cancelled). */
  cancel(): boolean;
}

export interface TimingWheelOptions {
  /** Span of a bucket of the finest level, in ms. */
  tickMs?: number;
  /** Buckets per level. */
  wheelSize?: number;
  /** The wheel's initial time: nothing due at or before it can be added. */
  startMs: number;
}

/** Shared by every level and entry of one wheel. */
interface Tally {
  pending: number;
  seq: number;
}

class WheelNode<T> implements WheelEntry<T> {
  prev: WheelNode<T> | null = null;
  next: WheelNode<T> | null = null;
  list: EntryList<T> | null = null;

  constructor(
    readonly dueMs: number,
    readonly value: T,
    /** Insertion order, to break ties between entries due at the same ms. */
    readonly seq: number,
    private readonly tally: Tally,
  ) {}

  cancel(): boolean {
    const list = this.list;
    if (list === null) return false;
    list.unlink(this);
    this.tally.pending--;
    return true;
  }
}

/** A doubly-linked list, so a cancel unlinks its node in O(1). */
class EntryList<T> {
  head: WheelNode<T> | null = null;
  tail: WheelNode<T> | null = null;
  count = 0;
  /** Heap key of a bucket; -1 while the bucket is not in the heap. */
  expiration = -1;

  append(node: WheelNode<T>): void {
    node.list = this;
    node.prev = this.tail;
    node.next = null;
    if (this.tail === null) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.count++;
  }

  unlink(node: WheelNode<T>): void {
    if (node.prev === null) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) this.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = null;
    node.next = null;
    node.list = null;
    this.count--;
  }

  /** Empties the list, handing each node, already detached, to `visit` in list order. */
  takeAll(visit: (node: WheelNode<T>) => void): void {
    let node = this.head;
    this.head = null;
    this.tail = null;
    this.count = 0;
    while (node !== null) {
      const next = node.next;
      node.prev = null;
      node.next = null;
      node.list = null;
      visit(node);
      node = next;
    }
  }
}

/** Binary min-heap of buckets by expiration; a bucket is in it at most once. */
class BucketHeap<T> {
  private readonly items: EntryList<T>[] = [];

  get length(): number {
    return this.items.length;
  }

  peek(): EntryList<T> | undefined {
    return this.items[0];
  }

  push(bucket: EntryList<T>): void {
    const items = this.items;
    let i = items.length;
    items.push(bucket);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (p.expiration <= bucket.expiration) break;
      items[i] = p;
      i = parent;
    }
    items[i] = bucket;
  }

  pop(): EntryList<T> | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    const n = items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && items[right]!.expiration < items[left]!.expiration) child = right;
      const c = items[child]!;
      if (last.expiration <= c.expiration) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}

/** One level of the hierarchy. */
class Level<T> {
  readonly interval: number;
  readonly buckets: EntryList<T>[];
  /** Start of the tick holding the wheel's time, aligned to this level's tick. */
  currentTime: number;
  overflow: Level<T> | null = null;

  constructor(
    readonly tickMs: number,
    readonly wheelSize: number,
    timeMs: number,
  ) {
    this.interval = tickMs * wheelSize;
    this.buckets = Array.from({ length: wheelSize }, () => new EntryList<T>());
    this.currentTime = alignDown(timeMs, tickMs);
  }
}

function alignDown(ms: number, tickMs: number): number {
  return Math.floor(ms / tickMs) * tickMs;
}

function byDueThenInsertion<T>(a: WheelNode<T>, b: WheelNode<T>): number {
  return a.dueMs - b.dueMs || a.seq - b.seq;
}

function sortReleased<T>(nodes: WheelNode<T>[]): T[] {
  // Cascading can interleave insertion order within a millisecond; sort only then.
  for (let i = 1; i < nodes.length; i++) {
    if (byDueThenInsertion(nodes[i - 1]!, nodes[i]!) > 0) {
      nodes.sort(byDueThenInsertion);
      break;
    }
  }
  return nodes.map((node) => node.value);
}

/**
 * A pure hierarchical timing wheel: no Node timers and no clock of its own; time
 * moves only through `advance(nowMs)`.
 */
export class TimingWheel<T> {
  readonly #tally: Tally = { pending: 0, seq: 0 };
  readonly #heap = new BucketHeap<T>();
  readonly #root: Level<T>;
  /**
   * Entries due later in the finest level's current, partly elapsed tick (only with
   * tickMs > 1): their bucket has expired, but they must not come out before their ms.
   */
  readonly #current = new EntryList<T>();
  #currentMin = Number.POSITIVE_INFINITY;
  #timeMs: number;

  constructor(options: TimingWheelOptions) {
    const { tickMs = 1, wheelSize = 512, startMs } = options;
    if (!Number.isInteger(tickMs) || tickMs < 1) throw new RangeError('tickMs must be a positive integer');
    if (!Number.isInteger(wheelSize) || wheelSize < 2) {
      throw new RangeError('wheelSize must be an integer >= 2');
    }
    if (!Number.isFinite(startMs)) throw new RangeError('startMs must be a finite number');
    this.#timeMs = startMs;
    this.#root = new Level<T>(tickMs, wheelSize, startMs);
  }

  /** Pending, non-cancelled entries. */
  get size(): number {
    return this.#tally.pending;
  }

  /** The time the wheel has advanced to. */
  get timeMs(): number {
    return this.#timeMs;
  }

  /**
   * Holds `value` until `dueMs`. Returns null if it is already due (dueMs at or before
   * the wheel's time; with tickMs 1 that is Kafka's `dueMs < currentTime + tickMs`):
   * the caller releases it itself.
   */
  add(dueMs: number, value: T): WheelEntry<T> | null {
    if (!Number.isFinite(dueMs)) throw new RangeError('dueMs must be a finite number');
    if (dueMs <= this.#timeMs) return null;
    const node = new WheelNode(dueMs, value, this.#tally.seq++, this.#tally);
    this.#place(node);
    this.#tally.pending++;
    return node;
  }

  /**
   * Moves the wheel's time to `nowMs` (never backwards) and returns every pending
   * value due at or before it, by due time, ties in insertion order.
   */
  advance(nowMs: number): T[] {
    if (!Number.isFinite(nowMs)) throw new RangeError('nowMs must be a finite number');
    if (nowMs <= this.#timeMs) return [];
    this.#timeMs = nowMs;
    const released: WheelNode<T>[] = [];
    if (this.#current.count > 0) this.#releaseCurrent(nowMs, released);

    for (let bucket = this.#heap.peek(); bucket !== undefined && bucket.expiration <= nowMs; ) {
      this.#heap.pop();
      // Set the clocks to the bucket's expiration first, so its not-yet-due entries
      // cascade into the finer level that covers them from there.
      this.#setClocks(bucket.expiration);
      bucket.expiration = -1;
      bucket.takeAll((node) => {
        if (node.dueMs <= nowMs) released.push(node);
        else this.#place(node);
      });
      bucket = this.#heap.peek();
    }
    this.#setClocks(nowMs);
    this.#tally.pending -= released.length;
    return sortReleased(released);
  }

  /**
   * When the driver should next call `advance`: the earliest expiration of a bucket
   * still holding entries (a coarse bucket expires at its start, at or before its
   * entries' due times), or null when nothing is pending.
   */
  nextExpiration(): number | null {
    const heap = this.#heap;
    let top = heap.peek();
    // Buckets emptied by cancels would only cause useless wake-ups.
    while (top !== undefined && top.count === 0) {
      heap.pop();
      top.expiration = -1;
      top = heap.peek();
    }
    let next = top === undefined ? null : top.expiration;
    if (this.#current.count > 0 && (next === null || this.#currentMin < next)) next = this.#currentMin;
    return next;
  }

  /** Removes and returns every pending value, by due time (for a shutdown to hand back). */
  drain(): T[] {
    const nodes: WheelNode<T>[] = [];
    const collect = (list: EntryList<T>): void => {
      list.takeAll((node) => nodes.push(node));
      list.expiration = -1;
    };
    collect(this.#current);
    for (let level: Level<T> | null = this.#root; level !== null; level = level.overflow) {
      for (const bucket of level.buckets) if (bucket.count > 0 || bucket.expiration !== -1) collect(bucket);
    }
    this.#heap.clear();
    this.#tally.pending = 0;
    return sortReleased(nodes);
  }

  /** Puts a node due after the wheel's time into the finest level whose span covers it. */
  #place(node: WheelNode<T>): void {
    const dueMs = node.dueMs;
    let level = this.#root;
    if (dueMs < level.currentTime + level.tickMs) {
      // A cancel leaves the minimum stale (low): at worst one early wake-up, after
      // which advance() recomputes it.
      if (this.#current.count === 0 || dueMs < this.#currentMin) this.#currentMin = dueMs;
      this.#current.append(node);
      return;
    }
    while (dueMs >= level.currentTime + level.interval) {
      // Kafka starts the overflow level at the current time of the level below it.
      level.overflow ??= new Level<T>(level.interval, level.wheelSize, level.currentTime);
      level = level.overflow;
    }
    const virtualId = Math.floor(dueMs / level.tickMs);
    const slot = ((virtualId % level.wheelSize) + level.wheelSize) % level.wheelSize;
    const bucket = level.buckets[slot]!;
    bucket.append(node);
    const expiration = virtualId * level.tickMs;
    // Within a level's span, a slot only ever holds one expiration at a time.
    if (bucket.expiration !== expiration) {
      bucket.expiration = expiration;
      this.#heap.push(bucket);
    }
  }

  #setClocks(ms: number): void {
    for (let level: Level<T> | null = this.#root; level !== null; level = level.overflow) {
      level.currentTime = alignDown(ms, level.tickMs);
    }
  }

  #releaseCurrent(nowMs: number, released: WheelNode<T>[]): void {
    const current = this.#current;
    let min = Number.POSITIVE_INFINITY;
    for (let node = current.head; node !== null; ) {
      const next = node.next;
      if (node.dueMs <= nowMs) {
        current.unlink(node);
        released.push(node);
      } else if (node.dueMs < min) {
        min = node.dueMs;
      }
      node = next;
    }
    this.#currentMin = min;
  }
}
