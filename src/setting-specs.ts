import { isIP } from 'node:net';
import { z } from 'zod';
import { formatAllowedHost, parseAllowedHost } from './domain/allowed-host.js';
import { LIMITS } from './domain/timer.js';
import { parseMysqlUrl } from './storage/db/mysql-url.js';
import { clusterTarget, sentinelTarget } from './storage/redis/connection.js';

/**
 * What each setting is: its name, its Config key, how it is validated, its default and its
 * line in docs/configuration.md. config.ts reads the environment through these.
 */

export const ROLES = ['api', 'scheduler', 'migrator', 'trigger', 'executor'] as const;
export type RoleName = (typeof ROLES)[number];

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

/** Where a setting belongs in the reference: what every deployment sets, what a team decides, what a load asks. */
export type SettingGroup = 'essential' | 'policy' | 'tuning';

/** One setting: its Config key, its group, its validation, and its line in the reference. */
export interface SettingSpec<K extends string = string, S extends z.ZodType = z.ZodType> {
  key: K;
  group: SettingGroup;
  /** The default as the reference shows it. */
  default: string;
  /** What it does, in a line. */
  about: string;
  schema: S;
  /** Never echoed in errors (a URL may carry a password). */
  secret?: boolean;
}

const setting = <K extends string, S extends z.ZodType>(spec: SettingSpec<K, S>) => spec;

/** Every setting, once: the schema, the Config type and its mapping, and docs/configuration.md follow from it. */
export const SETTING_SPECS = {
  PORT: setting({
    key: 'port',
    group: 'essential',
    default: '`8081`',
    about: 'HTTP port of the api role',
    schema: int(0, 65_535).default(8081),
  }),
  HOST: setting({
    key: 'host',
    group: 'essential',
    default: '`127.0.0.1`',
    about: 'address the api role listens on (`0.0.0.0` in the Docker image)',
    schema: z.string().min(1).default('127.0.0.1'),
  }),
  MYSQL_URL: setting({
    key: 'mysqlUrl',
    secret: true,
    group: 'essential',
    default: '`mysql://root@127.0.0.1:3306/xtimer`',
    about:
      'MySQL 8 / MariaDB ≥ 10.6; must name a database, which is created if missing and migrated at start; several hosts (`h1:3306,h2:3306`) are used one at a time ([Galera](operating.md#mysql-with-several-hosts--galera))',
    schema: z
      .string()
      .default('mysql://root@127.0.0.1:3306/xtimer')
      .superRefine((u, ctx) => {
        let database: string;
        try {
          database = parseMysqlUrl(u).database;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a mysql:// URL (hosts separated by commas)' });
          return;
        }
        if (!/^[A-Za-z0-9_$]{1,64}$/.test(database))
          ctx.addIssue({ code: 'custom', message: 'must name a database, e.g. /xtimer' });
      }),
  }),
  REDIS_URL: setting({
    key: 'redisUrl',
    secret: true,
    group: 'essential',
    default: '`redis://127.0.0.1:6379`',
    about:
      'Redis ≥ 6.2 (`rediss://` for TLS); a Redis Cluster: `redis+cluster://host:port,host:port` ([Redis Cluster](operating.md#redis-cluster)); or the master Redis Sentinels watch: `redis+sentinel://host:port,host:port/master-name`, `?sentinelPassword=` when the Sentinels require a password ([Redis Sentinel](operating.md#redis-sentinel))',
    schema: z
      .string()
      .default('redis://127.0.0.1:6379')
      .superRefine((u, ctx) => {
        try {
          if (clusterTarget(u) !== null || sentinelTarget(u) !== null) return;
          if (!/^rediss?:$/.test(new URL(u).protocol)) throw new Error('');
        } catch (err) {
          const why = (err as Error).message;
          ctx.addIssue({
            code: 'custom',
            message: `must be a redis:// or rediss:// URL, redis+cluster://host:port,host:port for a Redis Cluster, or redis+sentinel://host:port,host:port/master-name[?sentinelPassword=…] for Redis Sentinel${why ? ` (${why})` : ''}`,
          });
        }
      }),
  }),
  REDIS_CLUSTER_NODES: setting({
    key: 'redisClusterNodes',
    group: 'essential',
    default: '—',
    about:
      "a Redis Cluster's seed nodes, `host:port,host:port`; `REDIS_URL` then gives only the user, password and TLS ([Redis Cluster](operating.md#redis-cluster))",
    schema: z
      .string()
      .superRefine((nodes, ctx) => {
        try {
          clusterTarget(`redis+cluster://${nodes}`);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `a comma list of host:port: ${(err as Error).message}` });
        }
      })
      .optional(),
  }),
  XTIMER_PREFIX: setting({
    key: 'prefix',
    group: 'essential',
    default: '`xtimer:`',
    about:
      'prefix of every Redis key (BullMQ queues use it as a hash tag, `{xtimer}`); processes of one cluster share it',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,32}$/, 'letters, digits and _ . : - only, at most 32')
      .default('xtimer:'),
  }),
  XTIMER_ROLES: setting({
    key: 'roles',
    group: 'essential',
    default: 'all: `api,scheduler,migrator,trigger,executor`',
    about: 'the roles this process runs; `--roles=` on the command line wins',
    schema: z
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
        return roles as RoleName[];
      }),
  }),
  BUCKETS: setting({
    key: 'buckets',
    group: 'tuning',
    default: '`10`',
    about: 'buckets per minute (slices that can be walked in parallel)',
    schema: int(1, 1024).default(10),
  }),
  MAX_BUCKETS: setting({
    key: 'maxBuckets',
    group: 'tuning',
    default: '`1024`',
    about:
      "upper bound of the adaptive bucket count (`BUCKETS + timers/16` per minute, every timer with runs placed in it counted); ≥ `BUCKETS`; past ~`MAX_BUCKETS` × 128 runs a minute its slices leave Redis's compact encoding",
    schema: int(1, 4096).default(1024),
  }),
  SLICE_MEMBERS: setting({
    key: 'sliceMembers',
    group: 'tuning',
    default: '`auto`',
    about:
      'the form runs are written into slices in: `compact` (~12 bytes a run), `long` (~35, the only form releases before it read), or `auto`: compact unless a trigger of such a release is connected, or the trigger workers cannot be listed (a Redis without `CLIENT LIST`: set `compact` there once every process runs this release) ([Upgrades](operating.md#upgrades))',
    schema: z.enum(['auto', 'compact', 'long']).default('auto'),
  }),
  SCHEDULER_TICK_MS: setting({
    key: 'schedulerTickMs',
    group: 'tuning',
    default: '`1000`',
    about: 'how often a scheduler tries to claim slices',
    schema: int(50, 10_000).default(1000),
  }),
  PREFETCH_MS: setting({
    key: 'prefetchMs',
    group: 'tuning',
    default: '`2000`',
    about: 'how long before a minute starts its slices are claimed',
    schema: int(0, 30_000).default(2000),
  }),
  PREREAD_MS: setting({
    key: 'prereadMs',
    group: 'tuning',
    default: '`1500`',
    about: 'how far ahead of each 1 s window the trigger reads it and queues its runs',
    schema: int(0, 10_000).default(1500),
  }),
  MIGRATE_STEP_MINUTES: setting({
    key: 'migrateStepMinutes',
    group: 'tuning',
    default: '`60`',
    about: 'the migration window: runs are materialised this far ahead, at this interval',
    schema: int(1, 1440).default(60),
  }),
  TRIGGER_CONCURRENCY: setting({
    key: 'triggerConcurrency',
    group: 'tuning',
    default: '`3072`',
    about:
      'slice jobs one process walks at once; a slice job holds its slot for its whole minute, so the trigger processes together need 3 × `MAX_BUCKETS` (previous, current and next minute)',
    schema: int(1, 10_000).default(3072),
  }),
  EXECUTOR_CONCURRENCY: setting({
    key: 'executorConcurrency',
    group: 'tuning',
    default: '`10000`',
    about:
      'execute jobs one process holds at most, each a run or a batch of up to 500 runs of one slice second (waiting for their due ms or in their callback); fewer while `EXECUTOR_MAX_RUNS` has little room left, so that a backlog stays in the queue',
    schema: int(1, 100_000).default(10_000),
  }),
  EXECUTOR_WORKERS: setting({
    key: 'executorWorkers',
    group: 'tuning',
    default: '`4`',
    about:
      'BullMQ workers sharing `EXECUTOR_CONCURRENCY` in one process (each fetches jobs one round trip at a time); an executor without the API may take 16, which doubles what it delivers past capacity (docs/operating.md)',
    schema: int(1, 64).default(4),
  }),
  EXECUTOR_MAX_RUNS: setting({
    key: 'executorMaxRuns',
    group: 'tuning',
    default: '`20000`',
    about:
      'runs one executor process carries at once (claimed, waiting for their due ms, or in their callback); past it the process fetches no more jobs and the backlog waits in the queue unclaimed, so an overloaded process keeps its pace: runs get late, not lost',
    schema: int(100, 1_000_000).default(20_000),
  }),
  API_THREAD: setting({
    key: 'apiThread',
    group: 'tuning',
    default: '`own`',
    about:
      'in a process that runs the api beside other roles: `own` gives the api the main thread and runs the other roles in a worker thread, so that its answers never wait behind a saturated executor; `shared` runs every role on one thread',
    schema: z.enum(['own', 'shared']).default('own'),
  }),
  BACKFILL_RATE: setting({
    key: 'backfillRate',
    group: 'policy',
    default: '`50`',
    about: 'runs a second one backfill sends (`POST /api/v1/timers/{id}/backfills`), across the cluster',
    schema: int(1, 10_000).default(50),
  }),
  CALLBACK_TIMEOUT_MS: setting({
    key: 'callbackTimeoutMs',
    group: 'policy',
    default: '`5000`',
    about: 'default callback timeout of a timer that sets none',
    schema: int(100, 300_000).default(5000),
  }),
  SHUTDOWN_GRACE_MS: setting({
    key: 'shutdownGraceMs',
    group: 'essential',
    default: '`315000`',
    about:
      'how long a process stopping on `SIGTERM` waits for its calls in flight (each ends within its timeout, at most 300 s) and writes their outcomes; a second signal cuts it short. Give the container the same stop grace period',
    schema: int(1000, 3_600_000).default(DEFAULT_SHUTDOWN_GRACE_MS),
  }),
  APP_MAX_IN_FLIGHT: setting({
    key: 'appMaxInFlight',
    group: 'policy',
    default: '`1000`',
    about:
      "callbacks of one app in flight at once in one executor process; more wait for a slot of their app (without holding an executor slot), so one app's hanging receivers delay only that app's runs",
    schema: int(1, 100_000).default(1000),
  }),
  CALLBACK_CONNECTIONS: setting({
    key: 'callbackConnections',
    group: 'tuning',
    default: '`8192`',
    about:
      'most connections per callback origin and process, opened as needed: a burst of runs due at one instant goes out at once instead of queueing behind responses (each is a file descriptor: keep `ulimit -n` above it; lower it to spare a callback host)',
    schema: int(1, 65_535).default(8192),
  }),
  TASK_RETENTION_DAYS: setting({
    key: 'taskRetentionDays',
    group: 'policy',
    default: '`7`',
    about:
      'runs are kept this long: the run history is partitioned by day, and a day older than this is dropped whole ([Retention](operating.md#retention))',
    schema: int(1, 3650).default(7),
  }),
  TASK_RETENTION_FAILED_DAYS: setting({
    key: 'taskRetentionFailedDays',
    group: 'policy',
    default: '`30` (or `TASK_RETENTION_DAYS` if longer)',
    about:
      'failed and missed runs are kept this long (copied to `task_failures` when their day is dropped, and still listed); at least `TASK_RETENTION_DAYS`',
    schema: int(1, 3650).optional(),
  }),
  LOG_LEVEL: setting({
    key: 'logLevel',
    group: 'essential',
    default: '`info`',
    about:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; at `info` an idle process is quiet after start-up ([Metrics and logs](operating.md#metrics-and-logs))',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  }),
  LOG_FORMAT: setting({
    key: 'logFormat',
    group: 'essential',
    default: '`pretty` when stdout is a terminal, else `json`',
    about:
      'how log lines on stdout read: `pretty` for a person (time, level, component, message, then `key=value`), `json` for a log collector (pino JSON lines)',
    // Decided when the settings are read: a terminal has a person at it, a pipe a collector.
    schema: z.enum(['pretty', 'json']).default(() => (process.stdout.isTTY ? 'pretty' : 'json')),
  }),
  METRICS_PORT: setting({
    key: 'metricsPort',
    group: 'essential',
    default: 'unset (`9464` in the Docker image)',
    about: 'a process without the api role serves `/metrics` and `/healthz` on this port',
    schema: int(0, 65_535).optional(),
  }),
  XTIMER_INSECURE: setting({
    key: 'insecure',
    group: 'policy',
    default: '`false`',
    about:
      'let an api without `XTIMER_ADMIN_TOKEN` (open mode) listen on a non-loopback `HOST`: anyone who reaches the port is then the admin ([Security](security.md#the-model))',
    schema: bool.default(false),
  }),
  DASHBOARD_USER: setting({
    key: 'dashboardUser',
    group: 'policy',
    default: 'unset',
    about: 'basic-auth user of `/dashboard`; set together with `DASHBOARD_PASSWORD`',
    schema: z.string().min(1).max(256).optional(),
  }),
  DASHBOARD_PASSWORD: setting({
    key: 'dashboardPassword',
    secret: true,
    group: 'policy',
    default: 'unset',
    about: 'basic-auth password of `/dashboard` (never printed in errors)',
    schema: z.string().min(1).max(256).optional(),
  }),
  XTIMER_ADMIN_TOKEN: setting({
    key: 'adminToken',
    secret: true,
    group: 'essential',
    default: 'unset: open mode',
    about:
      'bearer token that administers everything (≥ 24 printable characters); set, every call needs a token and the api may listen anywhere; unset, open mode: anyone on this machine is the admin, loopback only ([Security](security.md#the-model))',
    schema: secret(24),
  }),
  XTIMER_SECRET_KEY: setting({
    key: 'secretKey',
    secret: true,
    group: 'essential',
    default: 'unset',
    about:
      "key material (≥ 24 characters) that encrypts the apps' signing secrets at rest; required with `XTIMER_ADMIN_TOKEN`; the same on every process",
    schema: secret(24),
  }),
  APP_KEY_GRACE_SECONDS: setting({
    key: 'appKeyGraceSeconds',
    group: 'policy',
    default: '`86400`',
    about: 'how long a rotated-out API key or signing secret stays valid by default',
    schema: int(0, 30 * 86_400).default(86_400),
  }),
  APP_RATE_LIMIT_PER_MINUTE: setting({
    key: 'appRateLimitPerMinute',
    group: 'policy',
    default: '`600`',
    about:
      'mutating API calls, previews and dry runs per app key and minute, across all api processes (`0` = no limit); 429 with `Retry-After` beyond',
    schema: int(0, 1_000_000).default(600),
  }),
  MAX_TIMERS_PER_APP: setting({
    key: 'maxTimersPerApp',
    group: 'policy',
    default: '`10000`',
    about: 'timers one app may have (`0` = no limit); 409 `TIMER_LIMIT_REACHED` beyond',
    schema: int(0, 100_000_000).default(10_000),
  }),
  MIN_RUN_INTERVAL_MS: setting({
    key: 'minRunIntervalMs',
    group: 'policy',
    default: '`1000`',
    about: 'crons whose runs come closer than this are refused with 400 `CRON_TOO_FREQUENT` (`0` = no limit)',
    schema: int(0, 86_400_000).default(1000),
  }),
  CALLBACK_BLOCK_PRIVATE: setting({
    key: 'callbackBlockPrivate',
    group: 'policy',
    default: '`true`',
    about:
      'the SSRF guard: refuse callback targets in loopback, private, link-local, CGNAT and other non-public ranges, at create time (400 `TARGET_BLOCKED`) and on every connection; `false` lets every timer call anything this host can reach, metadata endpoints included ([Callback targets](security.md#callback-targets-ssrf-guard))',
    schema: bool.default(true),
  }),
  CALLBACK_ALLOW_HOSTS: setting({
    key: 'callbackAllowHosts',
    group: 'policy',
    default: 'none',
    about:
      'comma list of host names (allowed whatever they resolve to) and IP addresses (`127.0.0.1`, `::1`) callbacks may reach despite the guard, each at every port or, as `host:port` (`127.0.0.1:3000`, `[::1]:3000`), at that one',
    schema: allowHostList,
  }),
  PUBLIC_HOSTS: setting({
    key: 'publicHosts',
    group: 'policy',
    default: 'none',
    about:
      'comma list of host names or addresses an open-mode api (no `XTIMER_ADMIN_TOKEN`) answers to besides `localhost`, `127.0.0.1` and `[::1]` (other `Host`s get 421): the name a proxy or colleagues use; with a token unused',
    schema: hostList('PUBLIC_HOSTS'),
  }),
};
