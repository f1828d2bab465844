import type { Timer } from '../domain/timer.js';
import { MicroBatcher } from '../storage/micro-batcher.js';

/** A cached timer; `stale` flips when a change is announced, so holders re-read it. */
export interface CachedTimer {
  readonly id: number;
  readonly timer: Timer | null;
  stale: boolean;
  readonly loadedAt: number;
}

/**
 * Timers by id for the executor, loaded in batches and dropped the moment a change is
 * announced (TimerEvents), so a disable, update or delete shows within 1 s. If MySQL
 * cannot be read, an expired entry is served rather than failing the run (SPEC §5.5:
 * firing goes on through a MySQL outage for runs already in Redis).
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

  constructor(
    load: (ids: number[]) => Promise<Timer[]>,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.loader = new MicroBatcher(async (ids) => {
      const found = new Map((await load([...new Set(ids)])).map((t) => [t.id, t]));
      return ids.map((id) => found.get(id) ?? null);
    }, 500);
  }

  async get(id: number): Promise<CachedTimer> {
    const cached = this.entries.get(id);
    if (cached && !cached.stale && this.now() - cached.loadedAt < this.ttlMs) return cached;
    const epoch = this.epoch;
    const generation = this.generations.get(id) ?? 0;
    try {
      const timer = await this.loader.load(id);
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
