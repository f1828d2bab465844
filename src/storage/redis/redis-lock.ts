import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { LocalKeyQueue } from '../../lib/local-key-queue.js';
import type { ScriptedPipeline, ScriptedRedis } from './scripts.js';
import { SlotBatch } from './slot-batch.js';

const HOLDER = `${hostname()}:${process.pid}`;

/** A holder token unique to this process and acquisition: `host:pid:random`. */
export function newLockToken(): string {
  return `${HOLDER}:${randomBytes(6).toString('hex')}`;
}

/**
 * Locks with a unique token per holder: acquire is an atomic SET NX PX; extend and
 * release go through compare-token Lua scripts, so nobody frees a lock it lost.
 */
export class RedisLock {
  private readonly queue = new LocalKeyQueue();

  constructor(private readonly redis: ScriptedRedis) {}

  async acquire(key: string, ttlMs: number, token = newLockToken()): Promise<string | null> {
    const ok = await this.redis.set(key, token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? token : null;
  }

  async extend(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.extendLock(key, token, ttlMs)) === 1;
  }

  /** Extends the lock for `token`, or takes it again if it lapsed and is free; false if another holds it. */
  async keep(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.keepLock(key, token, ttlMs)) === 1;
  }

  async release(key: string, token: string): Promise<boolean> {
    return (await this.redis.releaseLock(key, token)) === 1;
  }

  /**
   * Runs `fn` holding `key`, waiting up to `waitMs` for it; returns null (without
   * running `fn`) if the lock could not be had in time.
   */
  async withLock<T>(
    key: string,
    ttlMs: number,
    waitMs: number,
    fn: () => Promise<T>,
  ): Promise<{ value: T } | null> {
    return this.withLocks([key], ttlMs, waitMs, fn);
  }

  /**
   * Runs `fn` holding every one of `keys`, taken at once (one round trip however many).
   * If any is held elsewhere, those it took are given back before it waits and tries
   * again: it never waits holding a lock, so two callers cannot deadlock. Callers in
   * this process queue for the keys first, in order: one of them at a time polls Redis,
   * and the next takes over the moment the last lets go, rather than 100 of them
   * polling each other off the lock (and the busiest key answering "busy").
   */
  async withLocks<T>(
    keys: readonly string[],
    ttlMs: number,
    waitMs: number,
    fn: () => Promise<T>,
  ): Promise<{ value: T } | null> {
    const deadline = Date.now() + waitMs;
    const leave = await this.queue.enter(keys, deadline);
    if (!leave) return null;
    try {
      return await this.holding(keys, ttlMs, deadline, fn);
    } finally {
      leave();
    }
  }

  private async holding<T>(
    keys: readonly string[],
    ttlMs: number,
    deadline: number,
    fn: () => Promise<T>,
  ): Promise<{ value: T } | null> {
    let pause = 5;
    for (;;) {
      // One token for the keys taken together; sent as one pipeline (one per slot on a cluster).
      const token = newLockToken();
      const taken = await this.takeEach(keys, ttlMs, token);
      if (taken.length === keys.length) {
        try {
          return { value: await fn() };
        } finally {
          await this.releaseEach(taken, token);
        }
      }
      await this.releaseEach(taken, token);
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 100);
    }
  }

  /**
   * Tries to take every one of `keys` for `token`; the ones it got. A failed call gives back
   * what it may have taken (all of `keys`, when a whole pipeline failed and the replies are
   * unknown: the release compares tokens, so it frees only this token's) and throws.
   */
  private async takeEach(keys: readonly string[], ttlMs: number, token: string): Promise<string[]> {
    const batch = new SlotBatch(this.redis);
    for (const key of keys) batch.on(key).set(key, token, 'PX', ttlMs, 'NX');
    let replies: Array<[Error | null, unknown]>;
    try {
      replies = await batch.exec();
    } catch (err) {
      await this.releaseEach(keys, token);
      throw err;
    }
    const taken = keys.filter((_, i) => replies[i]![1] === 'OK');
    const failed = replies.find(([err]) => err !== null);
    if (failed) {
      await this.releaseEach(taken, token);
      throw failed[0];
    }
    return taken;
  }

  /** Gives back `keys` held by `token`, each only if still its own; never throws (a lapsed lock frees itself). */
  private async releaseEach(keys: readonly string[], token: string): Promise<void> {
    if (keys.length === 0) return;
    const batch = new SlotBatch(this.redis);
    for (const key of keys) (batch.on(key) as ScriptedPipeline).releaseLock(key, token);
    await batch.exec().catch(() => undefined);
  }
}
