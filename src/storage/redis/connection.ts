import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * Every xtimer connection: one Redis (also the master a Sentinel names, REDIS_URL
 * `redis+sentinel://…`), or a Redis Cluster (REDIS_URL `redis+cluster://…`).
 */
export type RedisClient = Redis | Cluster;

/** A Redis Cluster's seed nodes and credentials, from `redis+cluster://[user:pass@]host:port,host:port`. */
export interface ClusterTarget {
  nodes: Array<{ host: string; port: number }>;
  username?: string | undefined;
  password?: string | undefined;
  tls: boolean;
}

/**
 * The Sentinels watching a master, its name and credentials, from
 * `redis+sentinel://[user:pass@]host:port,host:port/name[?sentinelPassword=…]`.
 */
export interface SentinelTarget {
  sentinels: Array<{ host: string; port: number }>;
  /** The master's name in the Sentinels' `sentinel monitor` line. */
  name: string;
  /** The master's (and its replicas') user and password. */
  username?: string | undefined;
  password?: string | undefined;
  /** The Sentinels' own, when they require one (`requirepass`, or an ACL user). */
  sentinelUsername?: string | undefined;
  sentinelPassword?: string | undefined;
  tls: boolean;
}

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)\/?$/;
const SENTINEL_URL =
  /^(rediss?)\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)(?:\/([^/?#]*))?(?:\?([^#]*))?$/;
const SENTINEL_FORM = 'redis+sentinel://[user:password@]host:port,host:port/master-name[?sentinelPassword=…]';
/** What a Sentinel URL's query may set: the Sentinels' own credentials, as ioredis names them. */
const SENTINEL_PARAMS = ['sentinelUsername', 'sentinelPassword'] as const;
const NODE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/**
 * The cluster a REDIS_URL names (`redis+cluster://…`, `rediss+cluster://…` for TLS), null
 * for a plain `redis://` URL. Throws on a cluster URL that names no valid host:port.
 */
export function clusterTarget(url: string): ClusterTarget | null {
  if (!/^rediss?\+cluster:/.test(url)) return null;
  const m = CLUSTER_URL.exec(url);
  if (!m) throw new Error('a cluster URL reads redis+cluster://[user:password@]host:port,host:port');
  return { nodes: hostPorts(m[4]!), username: decode(m[2]), password: decode(m[3]), tls: m[1] === 'rediss' };
}

/**
 * The Sentinels and master a REDIS_URL names (`redis+sentinel://…/name`,
 * `rediss+sentinel://…` for TLS), null for any other URL. The user and password before
 * the `@` are the master's; the Sentinels' own, when they require one, go in the query
 * (`?sentinelPassword=…`, and `&sentinelUsername=…` for an ACL user), as ioredis takes
 * options from a URL's query. Throws on a Sentinel URL without valid host:port Sentinels,
 * without the master's name, or with a query it does not read (never echoing a value).
 */
export function sentinelTarget(url: string): SentinelTarget | null {
  if (!/^rediss?\+sentinel:/.test(url)) return null;
  const m = SENTINEL_URL.exec(url);
  if (!m) throw new Error(`a Sentinel URL reads ${SENTINEL_FORM}`);
  const name = decode(m[5]);
  if (!name) throw new Error('the URL names no master: end it with /<master-name>, as in `sentinel monitor`');
  const params = sentinelParams(m[6]);
  return {
    sentinels: hostPorts(m[4]!),
    name,
    username: decode(m[2]),
    password: decode(m[3]),
    sentinelUsername: params.sentinelUsername,
    sentinelPassword: params.sentinelPassword,
    tls: m[1] === 'rediss',
  };
}

/**
 * The query of a Sentinel URL. Read by hand, not by URLSearchParams, which would turn a
 * `+` in a password into a space: values are percent-escaped as the user and password are.
 */
function sentinelParams(
  query: string | undefined,
): Partial<Record<(typeof SENTINEL_PARAMS)[number], string>> {
  const out: Partial<Record<(typeof SENTINEL_PARAMS)[number], string>> = {};
  if (query === undefined) return out;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const known = SENTINEL_PARAMS.find((k) => k === key);
    if (!known) {
      // A name is named (a misspelling shows); anything else may be a password pasted in.
      const what = eq > 0 && /^[A-Za-z_]{1,40}$/.test(key) ? `"${key}"` : 'an item that is not name=value';
      throw new Error(`the URL's query may set only ${SENTINEL_PARAMS.join(' and ')}, not ${what}`);
    }
    if (out[known] !== undefined) throw new Error(`${known} is set twice`);
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (!value) throw new Error(`${known} is empty`);
    out[known] = value;
  }
  if (out.sentinelUsername !== undefined && out.sentinelPassword === undefined)
    throw new Error('sentinelUsername needs sentinelPassword beside it');
  return out;
}

function hostPorts(list: string): Array<{ host: string; port: number }> {
  return list.split(',').map((spec) => {
    const node = NODE.exec(spec.trim());
    const port = Number(node?.[2]);
    if (!node || port < 1 || port > 65_535) throw new Error(`"${spec}" is not a host:port`);
    return { host: node[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

function decode(v: string | undefined): string | undefined {
  if (!v) return undefined;
  try {
    return decodeURIComponent(v);
  } catch {
    throw new Error('a % in the URL is not an escape: write it as %25');
  }
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis.isCluster;
}

/** Back off to at most 2 s between reconnects; never give up. */
const reconnectDelay = (times: number) => Math.min(times * 100, 2000);

/**
 * A Redis connection (to the master the Sentinels name when the URL names Sentinels), or
 * a Redis Cluster client when the URL names a cluster. BullMQ
 * needs `maxRetriesPerRequest: null` on the connections it is given (it blocks on some),
 * so every connection is made that way: commands wait through a reconnect (a cluster's
 * failover) instead of failing after 20 tries.
 */
export function createRedis(url: string, options: RedisOptions = {}): RedisClient {
  const base: RedisOptions = {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: reconnectDelay,
    ...options,
  };
  const sentinel = sentinelTarget(url);
  if (sentinel !== null) return new Redis(sentinelOptions(sentinel, base));
  const cluster = clusterTarget(url);
  if (cluster === null) return new Redis(url, base);
  // A cluster reconnects per node itself; the options that concern the whole client go up a level.
  // Never auto-pipelined on a cluster: ioredis groups a script call by the slot of its
  // first argument (the key count), not of its keys, and checks the grouping only when the
  // pipeline goes out, so calls to different masters end up in one pipeline and all fail
  // with "All keys in the pipeline should belong to the same slots allocation group"
  // (ioredis #2109; after a failover too, #2075). Claims failed that way lost their runs
  // until the compensator's sweep, minutes later. Claims are batched into scripts anyway.
  const { retryStrategy: _perNode, enableAutoPipelining: _grouping, ...redisOptions } = base;
  return new Cluster(cluster.nodes, {
    redisOptions: {
      ...redisOptions,
      ...(cluster.username ? { username: cluster.username } : {}),
      ...(cluster.password ? { password: cluster.password } : {}),
      ...(cluster.tls ? { tls: {} } : {}),
    },
    // No ready check on the cluster client: when CLUSTER INFO says `fail` (a master lost,
    // its replica not yet promoted), ioredis reconnects without ever settling the promise
    // of the connect() that asked, and BullMQ awaits that promise when it re-opens a
    // worker's blocking connection: the worker never fetched again, and its lane's runs
    // waited in the queue for good. Without the check, commands sent during a failover
    // meet CLUSTERDOWN and are retried (retryDelayOnClusterDown).
    enableReadyCheck: false,
    clusterRetryStrategy: reconnectDelay,
    // Through a failover (a master's replica takes over within a few seconds), commands
    // are retried rather than failed: MOVED/ASK and CLUSTERDOWN are waited out.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    maxRedirections: 100,
    slotsRefreshTimeout: 2000,
  });
}

/**
 * A connection to the master the Sentinels name, asked again at every (re)connect. The
 * URL's user and password are the master's; the Sentinels are asked with their own when
 * the query gives them (without, their default, otherwise), over TLS when the master is.
 */
function sentinelOptions(target: SentinelTarget, base: RedisOptions): RedisOptions {
  return {
    ...base,
    sentinels: target.sentinels,
    name: target.name,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.sentinelUsername ? { sentinelUsername: target.sentinelUsername } : {}),
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
    ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    sentinelRetryStrategy: reconnectDelay,
    // Not ioredis's failoverDetector: a +switch-master heard while the connection was
    // reconnecting (as it is when the master died) ended it for good ("Connection is
    // closed" on every command). A demoted master's clients are closed by Sentinel itself.
    failoverDetector: false,
    // A write that reaches a demoted master is refused with READONLY and never ran:
    // reconnect (to the master the Sentinels name now) and send it again.
    reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
  };
}
