import { readdirSync, readFileSync } from 'node:fs';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection.js';

/**
 * Loads every `lua/name-N.lua` and `lua/runs/name-N.lua` script onto a connection with defineCommand, the way
 * BullMQ does: N is the number of KEYS, the file's header lists KEYS and ARGV. A script
 * named `name.lua` takes a variable number of keys (the caller passes the count first).
 * A line `--- @include "x"` is replaced by `lua/includes/x.lua` (BullMQ's includes/),
 * so what several scripts share is written once.
 */
const LUA_DIR = new URL('./lua/', import.meta.url);
const INCLUDE = /^--- @include "([a-z-]+)"$/gm;

function expandIncludes(lua: string, file: string): string {
  return lua.replace(INCLUDE, (_, name: string) => {
    try {
      return readFileSync(new URL(`includes/${name}.lua`, LUA_DIR), 'utf8');
    } catch {
      throw new Error(`Lua script ${file} includes "${name}", but lua/includes/${name}.lua does not exist`);
    }
  });
}

/** Where the scripts are: `lua/`, and `lua/runs/` for those over runs' claim records and slots. */
const SCRIPT_DIRS = ['', 'runs/'];

const scripts = SCRIPT_DIRS.flatMap((dir) =>
  readdirSync(new URL(dir, LUA_DIR))
    .filter((f) => f.endsWith('.lua'))
    .map((f) => `${dir}${f}`),
).map((path) => {
  const file = path.slice(path.lastIndexOf('/') + 1);
  const match = /^([a-z-]+?)(?:-(\d+))?\.lua$/.exec(file);
  if (!match) throw new Error(`Lua script ${file} must be named name-N.lua (or name.lua for variable keys)`);
  const name = match[1]!.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const numberOfKeys = match[2] === undefined ? undefined : Number(match[2]);
  return { name, numberOfKeys, lua: expandIncludes(readFileSync(new URL(path, LUA_DIR), 'utf8'), path) };
});

export interface XtimerCommands {
  extendLock(key: string, token: string, ttlMs: number): Promise<number>;
  keepLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseLock(key: string, token: string): Promise<number>;
  raiseBucketCount(key: string, wanted: number, expireAtMs: number): Promise<number>;
  /** claim-runs.lua: numKeys, keys…, args… (see the script's header). */
  claimRuns(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<(string | number)[]>;
  /** renew-runs.lua: numKeys, keys…, args… (see the script's header). */
  renewRuns(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
  /** finish-runs.lua: numKeys, keys…, args… (see the script's header). */
  finishRuns(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
  backOffRun(
    key: string,
    owner: string,
    attempt: number,
    delayMs: number,
    keepMs: number,
    now: number,
  ): Promise<number>;
  releaseRun(key: string, owner: string, attempt: number, undo: 0 | 1): Promise<number>;
  /** reassert-finished.lua: numKeys, keys…, args… (see the script's header). */
  reassertFinished(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number>;
  /** mark-called.lua: numKeys, keys…, args… (see the script's header). */
  markCalled(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
  reopenRun(key: string, attempts: number, keepMs: number, now: number): Promise<number>;
  countHit(key: string, ttlMs: number, hits: number): Promise<number>;
  putTimerCopy(key: string, copy: string, version: number, ttlMs: number): Promise<number>;
  holdSlot(key: string, holder: string, ttlMs: number): Promise<number>;
}

export type ScriptedRedis = RedisClient & XtimerCommands;

/** A pipeline (or a SlotBatch's) with the scripts on it: each queues its call. */
export type ScriptedPipeline = ChainableCommander & {
  [K in keyof XtimerCommands]: (...args: Parameters<XtimerCommands[K]>) => ChainableCommander;
};

export function withScripts(redis: RedisClient): ScriptedRedis {
  for (const s of scripts) {
    if (s.name in redis) continue;
    redis.defineCommand(
      s.name,
      s.numberOfKeys === undefined ? { lua: s.lua } : { numberOfKeys: s.numberOfKeys, lua: s.lua },
    );
  }
  return redis as ScriptedRedis;
}
