import { Pool } from 'undici';
import { FifoQueue } from '../lib/fifo-queue.js';

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

interface Origin {
  shards: Shard[];
  /** Requests of this origin in flight, over all its shards. */
  inFlight: number;
  /** Callers waiting for a connection to come free, first come first served. */
  waiting: FifoQueue<() => void>;
}

/**
 * Keep-alive connection pools by origin: up to `connectionsPerOrigin` connections to
 * one origin, in shards of at most CONNECTIONS_PER_SHARD. A request goes to the shard
 * with the most connections free; a shard is added only when every connection of the
 * others carries a request, so a receiver called now and then keeps one small pool.
 * When every connection of the origin carries a request, the next caller waits here,
 * before `send` starts: a call's deadline then bounds the receiver's time, never a wait
 * for a connection inside this process (under overload, that wait made calls that never
 * went out count as timed out).
 */
export class OriginPools {
  private readonly origins = new Map<string, Origin>();

  constructor(
    private readonly connectionsPerOrigin: number,
    private readonly options: PoolOptions,
  ) {}

  /** Runs `send` on a pool of `origin`, counting it in flight until it settles. */
  async with<T>(origin: string, send: (pool: Pool) => Promise<T>): Promise<T> {
    const o = this.originOf(origin);
    if (o.inFlight >= this.connectionsPerOrigin) await new Promise<void>((r) => o.waiting.push(r));
    else o.inFlight++;
    const shard = this.pick(o, origin);
    shard.inFlight++;
    try {
      return await send(shard.pool);
    } finally {
      shard.inFlight--;
      // The connection goes to the longest waiter, which counts in flight in its place.
      const next = o.waiting.shift();
      if (next) next();
      else o.inFlight--;
    }
  }

  /** How many pools `origin` has now. */
  shardsOf(origin: string): number {
    return this.origins.get(origin)?.shards.length ?? 0;
  }

  /** Callers of `origin` waiting for a free connection. */
  waitingFor(origin: string): number {
    return this.origins.get(origin)?.waiting.length ?? 0;
  }

  async close(): Promise<void> {
    const shards = [...this.origins.values()].flatMap((o) => o.shards);
    this.origins.clear();
    await Promise.all(shards.map((s) => s.pool.close()));
  }

  private originOf(origin: string): Origin {
    let o = this.origins.get(origin);
    if (!o) {
      o = { shards: [], inFlight: 0, waiting: new FifoQueue<() => void>() };
      this.origins.set(origin, o);
    }
    return o;
  }

  private pick(o: Origin, origin: string): Shard {
    let best: Shard | undefined;
    let total = 0;
    for (const shard of o.shards) {
      total += shard.connections;
      if (!best || shard.connections - shard.inFlight > best.connections - best.inFlight) best = shard;
    }
    if (best && (best.inFlight < best.connections || total >= this.connectionsPerOrigin)) return best;
    const connections = Math.min(CONNECTIONS_PER_SHARD, this.connectionsPerOrigin - total);
    const added = { pool: new Pool(origin, { ...this.options, connections }), connections, inFlight: 0 };
    o.shards.push(added);
    return added;
  }
}
