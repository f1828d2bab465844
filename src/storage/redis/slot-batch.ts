import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from './connection.js';

/**
 * Commands on many keys sent together: one pipeline on a single Redis; on a Redis
 * Cluster one pipeline per hash slot, sent at once (a cluster pipeline must stay on one
 * node, and a slot is always on one). Replies come back in the order the commands were
 * added, each as ioredis reports it: [error, reply].
 */
export class SlotBatch {
  readonly #redis: RedisClient;
  readonly #cluster: boolean;
  readonly #pipelines = new Map<number, { pipeline: ChainableCommander; order: number[] }>();
  #added = 0;

  constructor(redis: RedisClient) {
    this.#redis = redis;
    this.#cluster = isCluster(redis);
  }

  /** The pipeline to add one command on `key` to (add exactly one). */
  on(key: string): ChainableCommander {
    const slot = this.#cluster ? calculateSlot(key) : 0;
    let entry = this.#pipelines.get(slot);
    if (!entry) {
      entry = { pipeline: this.#redis.pipeline(), order: [] };
      this.#pipelines.set(slot, entry);
    }
    entry.order.push(this.#added++);
    return entry.pipeline;
  }

  /** Commands added and not yet sent. */
  get size(): number {
    return this.#added;
  }

  async exec(): Promise<Array<[Error | null, unknown]>> {
    const replies = new Array<[Error | null, unknown]>(this.#added);
    const entries = [...this.#pipelines.values()];
    this.#pipelines.clear();
    this.#added = 0;
    await Promise.all(
      entries.map(async ({ pipeline, order }) => {
        const results = (await pipeline.exec()) ?? [];
        order.forEach((at, i) => {
          replies[at] = results[i] ?? [new Error('no reply'), null];
        });
      }),
    );
    return replies;
  }

  /** Sends the commands and throws the first command's error, if any. */
  async execOrThrow(): Promise<unknown[]> {
    return (await this.exec()).map(([err, reply]) => {
      if (err) throw err;
      return reply;
    });
  }
}
