import { z } from 'zod';

/**
 * The only reader of process.env. Every setting is validated at start; a bad value
 * stops the process with a message naming the setting (SPEC §8).
 */

export const ROLES = ['api', 'scheduler', 'migrator', 'trigger', 'executor'] as const;
export type Role = (typeof ROLES)[number];

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const schema = z.object({
  PORT: int(0, 65_535).default(8081),
  HOST: z.string().min(1).default('127.0.0.1'),
  MYSQL_URL: z
    .url({ protocol: /^mysql$/ })
    .default('mysql://root@127.0.0.1:3306/xtimer')
    .refine((u) => {
      try {
        return /^\/[A-Za-z0-9_$]{1,64}$/.test(new URL(u).pathname);
      } catch {
        return false;
      }
    }, 'must name a database, e.g. /xtimer'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  XTIMER_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,32}$/, 'letters, digits and _ . : - only, at most 32')
    .default('xtimer:'),
  XTIMER_ROLES: z
    .string()
    .default(ROLES.join(','))
    .transform((v, ctx) => {
      const roles = [
        ...new Set(
          v
            .split(',')
            .map((r) => r.trim())
            .filter(Boolean),
        ),
      ];
      const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
      if (roles.length === 0 || unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown role(s) ${JSON.stringify(unknown)}; use a comma list of ${ROLES.join(', ')}`,
        });
        return z.NEVER;
      }
      return roles as Role[];
    }),
  BUCKETS: int(1, 1024).default(10),
  MAX_BUCKETS: int(1, 4096).default(200),
  SCHEDULER_TICK_MS: int(50, 10_000).default(1000),
  PREFETCH_MS: int(0, 30_000).default(2000),
  PREREAD_MS: int(0, 10_000).default(1500),
  MIGRATE_STEP_MINUTES: int(1, 1440).default(60),
  TRIGGER_CONCURRENCY: int(1, 10_000).default(64),
  EXECUTOR_CONCURRENCY: int(1, 100_000).default(10_000),
  CALLBACK_TIMEOUT_MS: int(100, 300_000).default(5000),
  CALLBACK_CONNECTIONS: int(1, 10_000).default(256),
  TASK_RETENTION_DAYS: int(1, 3650).default(7),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  XTIMER_INSECURE: bool.default(false),
});

export type Config = {
  port: number;
  host: string;
  mysqlUrl: string;
  redisUrl: string;
  prefix: string;
  roles: Role[];
  buckets: number;
  maxBuckets: number;
  schedulerTickMs: number;
  prefetchMs: number;
  prereadMs: number;
  migrateStepMinutes: number;
  triggerConcurrency: number;
  executorConcurrency: number;
  callbackTimeoutMs: number;
  callbackConnections: number;
  taskRetentionDays: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  insecure: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration from `env` (process.env unless a test passes its own). */
export function loadConfig(env: Env = process.env): Config {
  // Empty strings mean "not set" (docker-compose writes them for blank variables).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'config');
        const got = present[name];
        return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
      }),
    );
  }
  const e = parsed.data;
  if (e.MAX_BUCKETS < e.BUCKETS) {
    throw new ConfigError([
      `MAX_BUCKETS: must be >= BUCKETS (${e.BUCKETS}) (got ${JSON.stringify(present.MAX_BUCKETS)})`,
    ]);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    mysqlUrl: e.MYSQL_URL,
    redisUrl: e.REDIS_URL,
    prefix: e.XTIMER_PREFIX,
    roles: e.XTIMER_ROLES,
    buckets: e.BUCKETS,
    maxBuckets: e.MAX_BUCKETS,
    schedulerTickMs: e.SCHEDULER_TICK_MS,
    prefetchMs: e.PREFETCH_MS,
    prereadMs: e.PREREAD_MS,
    migrateStepMinutes: e.MIGRATE_STEP_MINUTES,
    triggerConcurrency: e.TRIGGER_CONCURRENCY,
    executorConcurrency: e.EXECUTOR_CONCURRENCY,
    callbackTimeoutMs: e.CALLBACK_TIMEOUT_MS,
    callbackConnections: e.CALLBACK_CONNECTIONS,
    taskRetentionDays: e.TASK_RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    insecure: e.XTIMER_INSECURE,
  };
}
