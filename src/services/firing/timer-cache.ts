import type { Timer } from '../../domain/timer.js';
import { MicroBatcher } from '../../lib/micro-batcher.js';

/** A cached timer; `stale` flips when a change is announced, so holders re-read it. */
export interface CachedTimer {
  readonly id: number;
  readonly timer: Timer | null;
  stale: boolean;
  readonly loadedAt: number;
}

/** A timer's copy in Redis: the timer, null if it was deleted, undefined if none is kept. */
export type TimerCopy = Timer | null | undefined;

/**
 * Timers by id for the executor, loaded in batches and dropped the moment a change is
 * announced (TimerEvents), so a disable, update or delete shows within 1 s. They are read
 * from the copies the planners keep in Redis (TimerCopies) when there is one as new as the
 * run asks for, else from MySQL; so firing a planned run does not need MySQL. If MySQL
 * cannot be read, an older copy or an expired entry is served rather than failing the run.
 */
export class TimerCache {
  private readonly entries = new Map<number, CachedTimer>();
  /**
   * Invalidation generations: a load is stored only if no invalidation of its timer (or
   * of all timers) happened while it ran. Each invalidation writes a fresh number (never
   * 0, what a timer never invalidated reads), so a change during a load always shows;
   * comparing cache entries instead would miss one when there was no entry to begin with.
   */
  private readonly generations = new Map<number, number>();
  private epoch = 1;
  private counter = 1;
  private readonly loader: MicroBatcher<number, Timer | null>;
  private readonly copyLoader: MicroBatcher<number, TimerCopy> | null;

  constructor(
    load: (ids: number[]) => Promise<Timer[]>,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
    copies?: (ids: number[]) => Promise<TimerCopy[]>,
  ) {
    this.loader = new MicroBatcher(async (ids) => {
      const found = new Map((await load([...new Set(ids)])).map((t) => [t.id, t]));
      return ids.map((id) => found.get(id) ?? null);
    }, 500);
    this.copyLoader = copies ? new MicroBatcher(copies, 500) : null;
  }

  /** The timer as held, if it is fresh and at `minVersion` or newer: what `get` answers without a load. */
  peek(id: number, minVersion = 0): CachedTimer | undefined {
    const cached = this.entries.get(id);
    if (
      cached &&
      !cached.stale &&
      this.now() - cached.loadedAt < this.ttlMs &&
      (cached.timer === null || cached.timer.version >= minVersion)
    )
      return cached;
    return undefined;
  }

  /** The timer, at `minVersion` or newer unless only an older copy can be read (the run's plan's version). */
  async get(id: number, minVersion = 0): Promise<CachedTimer> {
    const held = this.peek(id, minVersion);
    if (held) return held;
    const cached = this.entries.get(id);
    const epoch = this.epoch;
    const generation = this.generations.get(id) ?? 0;
    try {
      const timer = await this.read(id, minVersion);
      const entry: CachedTimer = { id, timer, stale: false, loadedAt: this.now() };
      // A change announced while loading wins over what was read: that copy may predate it.
      if (epoch === this.epoch && generation === (this.generations.get(id) ?? 0)) this.store(entry);
      else entry.stale = true;
      return entry;
    } catch (err) {
      if (cached) return cached;
      throw err;
    }
  }

  private async read(id: number, minVersion: number): Promise<Timer | null> {
    if (!this.copyLoader) return this.loader.load(id);
    const copy = await this.copyLoader.load(id).catch(() => undefined);
    if (copy === null || (copy !== undefined && copy.version >= minVersion)) return copy;
    try {
      return await this.loader.load(id);
    } catch (err) {
      if (copy) return copy;
      throw err;
    }
  }

  /**
   * Keeps `entry` as the timer's copy. The copy it replaces (a concurrent load, or one
   * past its TTL) may still be held by a run waiting for its instant: it is marked
   * stale, as an invalidation would only reach the copy the map holds. So every copy
   * handed out is either the one held here or stale, and an invalidation reaches all.
   */
  private store(entry: CachedTimer): void {
    const replaced = this.entries.get(entry.id);
    if (replaced) replaced.stale = true;
    this.entries.set(entry.id, entry);
  }

  /** Drops one timer (a change was announced), or every timer (`null`: announcements may have been missed). */
  invalidate(id: number | null): void {
    if (id === null) {
      this.epoch++;
      this.generations.clear();
      for (const entry of this.entries.values()) entry.stale = true;
      this.entries.clear();
      return;
    }
    this.generations.set(id, ++this.counter);
    const entry = this.entries.get(id);
    if (entry) entry.stale = true;
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
