import { z } from 'zod';
import { SETTING_SPECS, type SettingSpec } from './setting-specs.js';
import { clusterTarget, sentinelTarget } from './storage/redis/connection.js';

/**
 * The only reader of process.env. Every setting is validated at start; a bad value
 * stops the process with a message naming the setting.
 */

type Specs = typeof SETTING_SPECS;

const schema = z.object(
  Object.fromEntries(Object.entries(SETTING_SPECS).map(([name, spec]) => [name, spec.schema])) as {
    [E in keyof Specs]: Specs[E]['schema'];
  },
);

/** Settings whose values are never echoed in errors. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(
  Object.entries(SETTING_SPECS as Record<string, SettingSpec>)
    .filter(([, spec]) => spec.secret)
    .map(([name]) => name),
);

/** Every environment variable the configuration reads (docs and deployment files are checked against it). */
export const SETTINGS = Object.keys(schema.shape) as ReadonlyArray<keyof typeof schema.shape>;

/** The configuration, one key per setting (TASK_RETENTION_FAILED_DAYS resolved to a number). */
export type Config = {
  [E in Exclude<keyof Specs, 'TASK_RETENTION_FAILED_DAYS'> as Specs[E]['key']]: z.output<Specs[E]['schema']>;
} & { taskRetentionFailedDays: number };

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
  const config = Object.fromEntries(
    Object.entries(SETTING_SPECS).map(([name, spec]) => [spec.key, e[name as keyof typeof e]]),
  ) as Record<string, unknown>;
  if (e.REDIS_CLUSTER_NODES) config.redisUrl = clusterUrl(e.REDIS_URL, e.REDIS_CLUSTER_NODES);
  // Unset: 30 days, or TASK_RETENTION_DAYS if that is longer.
  config.taskRetentionFailedDays = e.TASK_RETENTION_FAILED_DAYS ?? Math.max(30, e.TASK_RETENTION_DAYS);
  return config as Config;
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3}|\[::1\])$/i;

/** REDIS_CLUSTER_NODES as a cluster URL, with REDIS_URL's user, password and TLS. */
function clusterUrl(redisUrl: string, nodes: string): string {
  if (clusterTarget(redisUrl) !== null)
    throw new ConfigError(['REDIS_CLUSTER_NODES: REDIS_URL names a cluster already; set one of the two']);
  if (sentinelTarget(redisUrl) !== null)
    throw new ConfigError([
      'REDIS_CLUSTER_NODES: REDIS_URL names a master through Sentinels; a Redis Cluster and Sentinels do not go together: set one of the two',
    ]);
  const url = new URL(redisUrl);
  const auth =
    url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol.replace(/:$/, '')}+cluster://${auth}${nodes}`;
}

/** Is `host` an address only this machine can reach? */
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

/**
 * How a process's roles share its threads: with API_THREAD=own, an api beside other roles
 * keeps the main thread and the others get a worker thread of their own (which serves no
 * metrics port: the api's /metrics includes its figures).
 */
export function threadsOf(config: Config): { main: Config; thread: Config | null } {
  const others = config.roles.filter((r) => r !== 'api');
  if (config.apiThread === 'shared' || others.length === 0 || others.length === config.roles.length)
    return { main: config, thread: null };
  return {
    main: { ...config, roles: ['api'] },
    thread: { ...config, roles: others, metricsPort: undefined },
  };
}

/** The configuration of this process: its environment and its command-line arguments. */
export function loadProcessConfig(): Config {
  return loadConfig(process.env, process.argv.slice(2));
}
