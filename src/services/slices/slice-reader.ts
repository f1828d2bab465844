import { MINUTE, parseMinuteKey } from '../../domain/plan/slice.js';
import type { SliceRun } from '../../domain/plan/task-key.js';
import type { TaskRepository } from '../../storage/db/tasks/task-repository.js';
import type { Keys } from '../../storage/redis/keys.js';
import type { SliceStore } from '../../storage/redis/runs/slice-store.js';
import type { ScriptedRedis } from '../../storage/redis/scripts.js';

export interface WindowRead {
  runs: SliceRun[];
  /** Where they came from: the slice ZSET, or MySQL because Redis has lost its data. */
  source: 'redis' | 'mysql';
}

/**
 * Reads one slice window. While the migrator's "slices intact" marker is
 * there, the slice ZSET is the truth (no key = no runs). When Redis has lost its data
 * (the marker is gone until the migrator has rebuilt the slices) the window is read
 * from MySQL instead, taking the bucket's timers by `timer_id % BUCKETS`: the minute's
 * count can grow while its buckets are claimed (a slice job claimed again carries the
 * new one), and buckets read by different counts would leave some timers in none. Every
 * minute's first BUCKETS buckets are always walked; those past them read nothing here.
 */
export class SliceReader {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly slices: SliceStore,
    private readonly tasks: TaskRepository,
    private readonly baseBuckets: number,
  ) {}

  async read(minute: string, bucket: number, fromMs: number, toMs: number): Promise<WindowRead> {
    const [intact, runs] = await Promise.all([
      this.redis.exists(this.keys.slicesIntact()),
      this.slices.read(minute, bucket, fromMs, toMs),
    ]);
    if (intact === 1) return { runs, source: 'redis' };
    if (bucket >= this.baseBuckets) return { runs: [], source: 'mysql' };
    const start = parseMinuteKey(minute);
    const from = Math.max(fromMs, start);
    const to = Math.min(toMs, start + MINUTE);
    return { runs: await this.tasks.pendingInBucket(from, to, bucket, this.baseBuckets), source: 'mysql' };
  }
}
