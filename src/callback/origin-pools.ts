import { Pool } from 'undici';

/**
 * undici's Pool finds a free connection by walking all of its connections, on every
 * request and every drain: with thousands open to one receiver (a burst of thousands of
 * runs due in one millisecond, or slow receivers) that walk became the executor's main
 * cost, measured at 36% of its CPU with 8,192 open, and a late executor opens more. So
 * one origin's connections are split over pools of at most this many, each walked alone.
 */
export const CONNECTIONS_PER_SHARD = 256;

export type PoolOptions = ConstructorParameters<typeof Pool>[1];

interface Shard {
  pool: Pool;
  connections: number;
  inFlight: number;
}

/**
 * Keep-alive connection pools by origin: up to `connectionsPerOrigin` connections to
 * one origin, in shards of at most CONNECTIONS_PER_SHARD. A request goes to the shard
 * with the most connections free; a shard is added only when every connection of the
 * others carries a request, so a receiver called now and then keeps one small pool.
 */
export class OriginPools {
  private readonly origins = new Map<string, Shard[]>();

  constructor(
    private readonly connectionsPerOrigin: number,
    private readonly options: PoolOptions,
  ) {}

  /** Runs `send` on a pool of `origin`, counting it in flight until it settles. */
  async with<T>(origin: string, send: (pool: Pool) => Promise<T>): Promise<T> {
    const shard = this.pick(origin);
    shard.inFlight++;
    try {
      return await send(shard.pool);
    } finally {
      shard.inFlight--;
    }
  }

  /** How many pools `origin` has now. */
  shardsOf(origin: string): number {
    return this.origins.get(origin)?.length ?? 0;
  }

  async close(): Promise<void> {
    const shards = [...this.origins.values()].flat();
    this.origins.clear();
    await Promise.all(shards.map((s) => s.pool.close()));
  }

  private pick(origin: string): Shard {
    let shards = this.origins.get(origin);
    if (!shards) {
      shards = [];
      this.origins.set(origin, shards);
    }
    let best: Shard | undefined;
    let total = 0;
    for (const shard of shards) {
      total += shard.connections;
      if (!best || shard.connections - shard.inFlight > best.connections - best.inFlight) best = shard;
    }
    if (best && (best.inFlight < best.connections || total >= this.connectionsPerOrigin)) return best;
    const connections = Math.min(CONNECTIONS_PER_SHARD, this.connectionsPerOrigin - total);
    const added = { pool: new Pool(origin, { ...this.options, connections }), connections, inFlight: 0 };
    shards.push(added);
    return added;
  }
}
