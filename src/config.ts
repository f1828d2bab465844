import { isIP } from 'node:net';
import { z } from 'zod';
import { formatAllowedHost, parseAllowedHost } from './domain/allowed-host.js';
import { LIMITS } from './domain/timer.js';
import { clusterTarget } from './storage/redis/connection.js';

/**
 * The only reader of process.env. Every setting is validated at start; a bad value
 * stops the process with a message naming the setting.
 */

export const ROLES = ['api', 'scheduler', 'migrator', 'trigger', 'executor'] as const;
export type Role = (typeof ROLES)[number];

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * How long a stopping process waits for its calls in flight: the longest a callback may
 * take (a timer's `callback.timeoutMs` at most), and a margin to write their outcomes.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = LIMITS.timeoutMs.max + 15_000;
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
/** A secret of at least `min` characters, printable ASCII without spaces (it travels in headers). */
const secret = (min: number) =>
  z
    .string()
    .min(min, `must be at least ${min} characters`)
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces only')
    .optional();

const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A comma list of host names and IP addresses (IPv6 with or without brackets): lower
 * case, without a trailing dot or brackets, each once.
 */
const hostList = (setting: string) =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      const hosts = [
        ...new Set(
          v
            .split(',')
            .map((h) =>
              h
                .trim()
                .toLowerCase()
                .replace(/\.$/, '')
                .replace(/^\[(.*)\]$/, '$1'),
            )
            .filter(Boolean),
        ),
      ];
      const bad = hosts.filter((h) => !HOST_NAME.test(h) && isIP(h) === 0);
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `not host names or IP addresses: ${JSON.stringify(bad)}; ${setting} is a comma list of them`,
        });
        return z.NEVER;
      }
      return hosts;
    });

/**
 * CALLBACK_ALLOW_HOSTS: a comma list of host names and IP addresses, each optionally with
 * the one port it is allowed at (`127.0.0.1:9000`, `[::1]:9000`); written back normalised.
 */
const allowHostList = z
  .string()
  .default('')
  .transform((v, ctx) => {
    const entries = v
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const bad = entries.filter((h) => parseAllowedHost(h) === null);
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `not host names or IP addresses, each with an optional :port: ${JSON.stringify(bad)}; CALLBACK_ALLOW_HOSTS is a comma list of them`,
      });
      return z.NEVER;
    }
    return [...new Set(entries.map((h) => formatAllowedHost(parseAllowedHost(h)!)))];
  });

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
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .superRefine((u, ctx) => {
      try {
        if (clusterTarget(u) !== null) return;
        if (!/^rediss?:$/.test(new URL(u).protocol)) throw new Error('');
      } catch (err) {
        const why = (err as Error).message;
        ctx.addIssue({
          code: 'custom',
          message: `must be a redis:// or rediss:// URL, or redis+cluster://host:port,host:port for a Redis Cluster${why ? ` (${why})` : ''}`,
        });
      }
    }),
  /** A Redis Cluster's seed nodes, host:port,host:port: REDIS_URL then gives only the user, password and TLS. */
  REDIS_CLUSTER_NODES: z
    .string()
    .superRefine((nodes, ctx) => {
      try {
        clusterTarget(`redis+cluster://${nodes}`);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `a comma list of host:port: ${(err as Error).message}` });
      }
    })
    .optional(),
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
  TRIGGER_CONCURRENCY: int(1, 10_000).default(640),
  EXECUTOR_CONCURRENCY: int(1, 100_000).default(10_000),
  // BullMQ workers sharing EXECUTOR_CONCURRENCY in one process (each fetches jobs one at a time).
  EXECUTOR_WORKERS: int(1, 64).default(4),
  // Runs one executor process carries at once (claimed, waiting for their millisecond, being
  // called); more wait in the queue, unclaimed, so an overloaded process keeps its pace.
  EXECUTOR_MAX_RUNS: int(100, 1_000_000).default(20_000),
  // Runs a second one backfill sends (a backfill's runs are past: they wait their turn).
  BACKFILL_RATE: int(1, 10_000).default(50),
  CALLBACK_TIMEOUT_MS: int(100, 300_000).default(5000),
  // SIGTERM: calls in flight finish within this; set the container's stop grace period to it.
  SHUTDOWN_GRACE_MS: int(1000, 3_600_000).default(DEFAULT_SHUTDOWN_GRACE_MS),
  // Callbacks of one app in flight at once in one executor process; more wait (fairness between apps).
  APP_MAX_IN_FLIGHT: int(1, 100_000).default(1000),
  CALLBACK_CONNECTIONS: int(1, 65_535).default(8192),
  TASK_RETENTION_DAYS: int(1, 3650).default(7),
  // Failed and missed runs are kept this long (copied aside when their day is dropped); ≥ TASK_RETENTION_DAYS.
  TASK_RETENTION_FAILED_DAYS: int(1, 3650).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // A process without the api role serves /metrics and /healthz here (unset: not at all).
  METRICS_PORT: int(0, 65_535).optional(),
  XTIMER_INSECURE: bool.default(false),
  // Basic auth over /dashboard (the board and the timers page); both or neither.
  DASHBOARD_USER: z.string().min(1).max(256).optional(),
  DASHBOARD_PASSWORD: z.string().min(1).max(256).optional(),
  // Security (README "Security"). Unset admin token: the API is open (loopback only unless XTIMER_INSECURE).
  XTIMER_ADMIN_TOKEN: secret(24),
  // Encrypts the apps' signing secrets at rest; required once XTIMER_ADMIN_TOKEN is set.
  XTIMER_SECRET_KEY: secret(24),
  APP_KEY_GRACE_SECONDS: int(0, 30 * 86_400).default(86_400),
  APP_RATE_LIMIT_PER_MINUTE: int(0, 1_000_000).default(600),
  MAX_TIMERS_PER_APP: int(0, 100_000_000).default(10_000),
  MIN_RUN_INTERVAL_MS: int(0, 86_400_000).default(1000),
  // The SSRF guard is on in every mode; CALLBACK_ALLOW_HOSTS names the local receivers to call anyway.
  CALLBACK_BLOCK_PRIVATE: bool.default(true),
  CALLBACK_ALLOW_HOSTS: allowHostList,
  // Open mode answers only requests whose Host is loopback or one of these (DNS rebinding).
  PUBLIC_HOSTS: hostList('PUBLIC_HOSTS'),
});

/** Settings whose values are never echoed in errors. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  // URLs may carry a password.
  'MYSQL_URL',
  'REDIS_URL',
  'DASHBOARD_PASSWORD',
  'XTIMER_ADMIN_TOKEN',
  'XTIMER_SECRET_KEY',
]);

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
  executorMaxRuns: number;
  /** BACKFILL_RATE: runs a second per backfill. */
  backfillRate: number;
  executorWorkers: number;
  callbackTimeoutMs: number;
  /** SHUTDOWN_GRACE_MS: how long a stopping process waits for its calls in flight and the rest of its shutdown. */
  shutdownGraceMs: number;
  /** Callbacks of one app in flight at once per executor process. */
  appMaxInFlight: number;
  callbackConnections: number;
  taskRetentionDays: number;
  taskRetentionFailedDays: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  metricsPort?: number | undefined;
  insecure: boolean;
  /** Dashboard basic-auth credentials; both set or both absent. */
  dashboardUser?: string | undefined;
  dashboardPassword?: string | undefined;
  /** Bearer token that administers everything; absent = open mode (README "Security"). */
  adminToken?: string | undefined;
  /** Key material for the signing secrets at rest; absent = a built-in development key. */
  secretKey?: string | undefined;
  appKeyGraceSeconds: number;
  /** Mutating API calls per app key and minute (0 = no limit). */
  appRateLimitPerMinute: number;
  /** 0 = no limit. */
  maxTimersPerApp: number;
  /** Crons firing more often than this are refused (0 = no limit). */
  minRunIntervalMs: number;
  callbackBlockPrivate: boolean;
  /** Host names and IP addresses exempt from the SSRF guard. */
  callbackAllowHosts: string[];
  /** Besides loopback, the host names (or addresses) an open-mode API answers to. */
  publicHosts: string[];
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
        const shown = SECRET_SETTINGS.has(name) || got === undefined ? '' : ` (got ${JSON.stringify(got)})`;
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
  if (e.TASK_RETENTION_FAILED_DAYS !== undefined && e.TASK_RETENTION_FAILED_DAYS < e.TASK_RETENTION_DAYS) {
    throw new ConfigError([
      `TASK_RETENTION_FAILED_DAYS: must be >= TASK_RETENTION_DAYS (${e.TASK_RETENTION_DAYS}) (got ${JSON.stringify(present.TASK_RETENTION_FAILED_DAYS)})`,
    ]);
  }
  if ((e.DASHBOARD_USER === undefined) !== (e.DASHBOARD_PASSWORD === undefined)) {
    const missing = e.DASHBOARD_USER === undefined ? 'DASHBOARD_USER' : 'DASHBOARD_PASSWORD';
    throw new ConfigError([
      `${missing}: must be set together with ${missing === 'DASHBOARD_USER' ? 'DASHBOARD_PASSWORD' : 'DASHBOARD_USER'} (basic auth needs both)`,
    ]);
  }
  if (e.XTIMER_ADMIN_TOKEN !== undefined && e.XTIMER_SECRET_KEY === undefined) {
    throw new ConfigError([
      "XTIMER_SECRET_KEY: must be set when XTIMER_ADMIN_TOKEN is (it encrypts the apps' signing secrets at rest)",
    ]);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    mysqlUrl: e.MYSQL_URL,
    redisUrl: e.REDIS_CLUSTER_NODES ? clusterUrl(e.REDIS_URL, e.REDIS_CLUSTER_NODES) : e.REDIS_URL,
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
    executorMaxRuns: e.EXECUTOR_MAX_RUNS,
    backfillRate: e.BACKFILL_RATE,
    executorWorkers: e.EXECUTOR_WORKERS,
    callbackTimeoutMs: e.CALLBACK_TIMEOUT_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    appMaxInFlight: e.APP_MAX_IN_FLIGHT,
    callbackConnections: e.CALLBACK_CONNECTIONS,
    taskRetentionDays: e.TASK_RETENTION_DAYS,
    // Unset: 30 days, or TASK_RETENTION_DAYS if that is longer.
    taskRetentionFailedDays: e.TASK_RETENTION_FAILED_DAYS ?? Math.max(30, e.TASK_RETENTION_DAYS),
    logLevel: e.LOG_LEVEL,
    metricsPort: e.METRICS_PORT,
    insecure: e.XTIMER_INSECURE,
    dashboardUser: e.DASHBOARD_USER,
    dashboardPassword: e.DASHBOARD_PASSWORD,
    adminToken: e.XTIMER_ADMIN_TOKEN,
    secretKey: e.XTIMER_SECRET_KEY,
    appKeyGraceSeconds: e.APP_KEY_GRACE_SECONDS,
    appRateLimitPerMinute: e.APP_RATE_LIMIT_PER_MINUTE,
    maxTimersPerApp: e.MAX_TIMERS_PER_APP,
    minRunIntervalMs: e.MIN_RUN_INTERVAL_MS,
    callbackBlockPrivate: e.CALLBACK_BLOCK_PRIVATE,
    callbackAllowHosts: e.CALLBACK_ALLOW_HOSTS,
    publicHosts: e.PUBLIC_HOSTS,
  };
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3}|\[::1\])$/i;

/** Is `host` an address only this machine can reach? */
/** REDIS_CLUSTER_NODES as a cluster URL, with REDIS_URL's user, password and TLS. */
function clusterUrl(redisUrl: string, nodes: string): string {
  if (clusterTarget(redisUrl) !== null)
    throw new ConfigError(['REDIS_CLUSTER_NODES: REDIS_URL names a cluster already; set one of the two']);
  const url = new URL(redisUrl);
  const auth =
    url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol.replace(/:$/, '')}+cluster://${auth}${nodes}`;
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.test(host);
}

/**
 * Why this process must not start, if it must not: an api role without an admin token
 * (open mode) only listens on a loopback address, unless XTIMER_INSECURE says otherwise.
 */
export function exposureProblem(config: Config): string | null {
  if (!config.roles.includes('api') || config.adminToken !== undefined) return null;
  if (isLoopbackHost(config.host) || config.insecure) return null;
  return (
    `refusing to serve an open API on ${config.host}: no XTIMER_ADMIN_TOKEN is set, so anyone who can reach ` +
    'the port could read and change every timer. Set XTIMER_ADMIN_TOKEN (and XTIMER_SECRET_KEY), listen on ' +
    '127.0.0.1, or set XTIMER_INSECURE=1 to run open anyway.'
  );
}

/** The configuration of this process: its environment and its command-line arguments. */
export function loadProcessConfig(): Config {
  return loadConfig(process.env, process.argv.slice(2));
}
