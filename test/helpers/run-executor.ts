import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { AppSlots } from '../../src/services/firing/admission/app-slots.js';
import { LeaseKeeper } from '../../src/services/firing/lease-keeper.js';
import { ReleaseGate } from '../../src/services/firing/release/release-gate.js';
import type { RunExecutorDeps } from '../../src/services/firing/run-executor.js';
import { RunRecorder } from '../../src/services/firing/settle/run-recorder.js';
import { TimerCache } from '../../src/services/firing/timer-cache.js';
import type { Keys } from '../../src/storage/redis/keys.js';
import { OverlapSlots } from '../../src/storage/redis/runs/overlap-slots.js';
import { RunClaims } from '../../src/storage/redis/runs/run-claims.js';
import type { ScriptedRedis } from '../../src/storage/redis/scripts.js';

/** The stores and clock a test's run executor works on. */
export interface RunExecutorGround {
  redis: ScriptedRedis;
  keys: Keys;
  now(): number;
}

/**
 * A RunExecutor's dependencies for a test: real claims, leases and overlap slots in Redis
 * on the test's clock; no timers known, no history, every call answered 200, outcomes
 * written nowhere, retries and withdrawn runs dropped. A test overrides what it drives or
 * watches (pass `leases` with `claims`: the default leases renew the default claims).
 * A new dependency of RunExecutor gets its default here, once.
 */
export function runExecutorDeps(
  { redis, keys, now }: RunExecutorGround,
  overrides: Partial<RunExecutorDeps> = {},
): RunExecutorDeps {
  const logger = overrides.logger ?? createLogger('silent');
  const claims = new RunClaims(redis, keys, { now });
  return {
    claims,
    leases: overrides.leases ?? new LeaseKeeper(claims, now),
    history: async () => new Map(),
    cache: overrides.cache ?? new TimerCache(async () => []),
    recorder: overrides.recorder ?? new RunRecorder(async () => undefined, logger),
    caller: {
      send: async () => ({
        kind: 'response',
        status: 200,
        output: 'ok',
        retryAfter: null,
        sentAt: now(),
        durationMs: 1,
      }),
    },
    gate: overrides.gate ?? new ReleaseGate(now),
    slots: overrides.slots ?? new AppSlots(10),
    continuations: { retry: async () => undefined, withdraw: async () => undefined },
    overlap: new OverlapSlots(redis, keys),
    metrics: new Metrics(),
    redisMayHaveLostData: () => false,
    owner: 'test-host:1:abc',
    logger,
    now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...overrides,
  };
}
