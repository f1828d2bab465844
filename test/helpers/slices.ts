import { parseMinuteKey } from '../../src/domain/plan/slice.js';
import { parseSliceEntry, type SliceRun } from '../../src/domain/plan/task-key.js';
import type { ScriptedRedis } from '../../src/storage/redis/scripts.js';

/** Every run in the slices under `prefix`, in whichever form it was written. */
export async function sliceRuns(redis: ScriptedRedis, prefix: string): Promise<SliceRun[]> {
  const runs: SliceRun[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}slice:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      // slice:YYYY-MM-DDTHH:mm_bucket
      const start = parseMinuteKey(key.slice(`${prefix}slice:`.length, `${prefix}slice:`.length + 16));
      for (const member of await redis.zrange(key, 0, -1)) {
        const run = parseSliceEntry(member, start);
        if (run) runs.push(run);
      }
    }
  } while (cursor !== '0');
  return runs;
}
