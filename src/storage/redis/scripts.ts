import { readdirSync, readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * Loads every `lua/name-N.lua` script onto a connection with defineCommand, the way
 * BullMQ does: N is the number of KEYS, the file's header lists KEYS and ARGV.
 */
const LUA_DIR = new URL('./lua/', import.meta.url);

const scripts = readdirSync(LUA_DIR)
  .filter((f) => f.endsWith('.lua'))
  .map((file) => {
    const match = /^(.*)-(\d+)\.lua$/.exec(file);
    if (!match) throw new Error(`Lua script ${file} must be named name-N.lua`);
    const name = match[1]!.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    return { name, numberOfKeys: Number(match[2]), lua: readFileSync(new URL(file, LUA_DIR), 'utf8') };
  });

export interface XtimerCommands {
  extendLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseLock(key: string, token: string): Promise<number>;
  raiseBucketCount(key: string, wanted: number, expireAtMs: number): Promise<number>;
  claimRun(
    key: string,
    owner: string,
    leaseMs: number,
    keepMs: number,
  ): Promise<[string, number, number, string?]>;
  finishRun(key: string, owner: string, attempt: number, outcome: string, keepMs: number): Promise<number>;
  bloomAdd(key: string, ttlMs: number, ...offsets: number[]): Promise<number>;
  releaseRun(key: string, owner: string, undo: 0 | 1): Promise<number>;
  countHit(key: string, ttlMs: number): Promise<number>;
}

export type ScriptedRedis = Redis & XtimerCommands;

export function withScripts(redis: Redis): ScriptedRedis {
  for (const s of scripts) {
    if (!(s.name in redis)) redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.lua });
  }
  return redis as ScriptedRedis;
}
