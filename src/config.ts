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
  // Basic auth over /dashboard (the board and the timers page); both or neither.
  DASHBOARD_USER: z.string().min(1).max(256).optional(),
  DASHBOARD_PASSWORD: z.string().min(1).max(256).optional(),
});

/** Every environment variable the configuration reads (docs and deployment files are checked against it). */
export const SETTINGS = Object.keys(schema.shape) as ReadonlyArray<keyof typeof schema.shape>;

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
  /** Dashboard basic-auth credentials; both set or both absent. */
  dashboardUser?: string | undefined;
  dashboardPassword?: string | undefined;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Command-line settings: only `--roles=a,b` (or `--roles a,b`), which stands in for
 * XTIMER_ROLES so the npm start:* scripts need no platform-specific env syntax.
 * Anything else is an error: a mistyped flag must not silently start every role.
 */
function parseArgv(argv: readonly string[]): { roles?: string } {
  const out: { roles?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = /^--roles=(.*)$/.exec(arg);
    if (inline) {
      out.roles = inline[1]!;
    } else if (arg === '--roles' && argv[i + 1] !== undefined) {
      out.roles = argv[++i]!;
    } else {
      throw new ConfigError([`${arg}: unknown argument; the only one is --roles=<comma list of roles>`]);
    }
  }
  return out;
}

/**
 * Reads and validates the configuration from `env` and the command line `argv`
 * (process.env and no arguments unless the caller passes them; see loadProcessConfig).
 * `--roles` wins over XTIMER_ROLES.
 */
export function loadConfig(env: Env = process.env, argv: readonly string[] = []): Config {
  // Empty strings mean "not set" (docker-compose writes them for blank variables).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const args = parseArgv(argv);
  if (args.roles !== undefined) present.XTIMER_ROLES = args.roles;
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        let name = String(issue.path[0] ?? 'config');
        if (name === 'XTIMER_ROLES' && args.roles !== undefined) name = '--roles';
        const got = name === '--roles' ? args.roles : present[name];
        // Secrets are named, never echoed.
        const shown =
          name === 'DASHBOARD_PASSWORD' || got === undefined ? '' : ` (got ${JSON.stringify(got)})`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  const e = parsed.data;
  if (e.MAX_BUCKETS < e.BUCKETS) {
    throw new ConfigError([
      `MAX_BUCKETS: must be >= BUCKETS (${e.BUCKETS}) (got ${JSON.stringify(present.MAX_BUCKETS)})`,
    ]);
  }
  if ((e.DASHBOARD_USER === undefined) !== (e.DASHBOARD_PASSWORD === undefined)) {
    const missing = e.DASHBOARD_USER === undefined ? 'DASHBOARD_USER' : 'DASHBOARD_PASSWORD';
    throw new ConfigError([
      `${missing}: must be set together with ${missing === 'DASHBOARD_USER' ? 'DASHBOARD_PASSWORD' : 'DASHBOARD_USER'} (basic auth needs both)`,
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
    dashboardUser: e.DASHBOARD_USER,
    dashboardPassword: e.DASHBOARD_PASSWORD,
  };
}

/** The configuration of this process: its environment and its command-line arguments. */
export function loadProcessConfig(): Config {
  return loadConfig(process.env, process.argv.slice(2));
}
