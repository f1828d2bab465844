import { taskKey } from '../../../domain/plan/task-key.js';
import type { RunOutcome } from '../../db/tasks/task-repository.js';
import type { RedisClient } from '../connection.js';

/** Outcomes read per HSCAN step while draining. */
const SCAN_COUNT = 1000;

/**
 * Run outcomes MySQL could not take yet, kept in Redis (one hash, field = task key) so
 * that they outlive the process that made them: a write that failed, and whatever is
 * still unwritten when a process stops. Whoever drains it writes them to MySQL, where the
 * attempt fence keeps an older state from overwriting a newer one.
 */
export class OutcomeStash {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  async put(outcomes: readonly RunOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const args: string[] = [];
    for (const o of outcomes) args.push(taskKey(o.timerId, o.runAt), JSON.stringify(o));
    await this.redis.hset(this.key, ...args);
  }

  /** Forgets outcomes once MySQL has them; a newer outcome stashed meanwhile goes too, written by its own holder. */
  async remove(taskKeys: readonly string[]): Promise<void> {
    if (taskKeys.length > 0) await this.redis.hdel(this.key, ...taskKeys);
  }

  async size(): Promise<number> {
    return this.redis.hlen(this.key);
  }

  /**
   * Writes every stashed outcome with `write`, a page at a time, removing each page once
   * written; returns how many. A page whose write fails stays for the next drain.
   */
  async drain(write: (outcomes: RunOutcome[]) => Promise<void>): Promise<number> {
    let written = 0;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.key, cursor, 'COUNT', SCAN_COUNT);
      cursor = next;
      const keys: string[] = [];
      const outcomes: RunOutcome[] = [];
      for (let i = 0; i < flat.length; i += 2) {
        keys.push(flat[i]!);
        outcomes.push(JSON.parse(flat[i + 1]!) as RunOutcome);
      }
      if (outcomes.length === 0) continue;
      await write(outcomes);
      await this.remove(keys);
      written += outcomes.length;
    } while (cursor !== '0');
    return written;
  }
}
