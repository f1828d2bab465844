export interface MysqlHost {
  host: string;
  port: number;
}

export interface MysqlTarget {
  /** In the URL's order: the first reachable one is used, the next after it fails. */
  hosts: MysqlHost[];
  user: string;
  password: string;
  database: string;
}

const URL_SHAPE = /^(mysql:\/\/)([^@/?#]*@)?([^/?#]+)(.*)$/;

/**
 * Reads `mysql://user:pass@h1:p1,h2:p2/db`. WHATWG URL parsing rejects a comma-separated
 * host list, so each host is parsed alone in a URL of its own.
 */
export function parseMysqlUrl(url: string): MysqlTarget {
  const m = URL_SHAPE.exec(url);
  if (!m) throw new TypeError('not a mysql:// URL');
  const [, scheme = '', auth = '', hostList = '', rest = ''] = m;
  const parsed = hostList.split(',').map((h) => {
    if (h === '') throw new TypeError('empty host in the host list');
    return new URL(`${scheme}${auth}${h}${rest}`);
  });
  const first = parsed[0] as URL;
  return {
    hosts: parsed.map((u) => ({
      host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: u.port ? Number(u.port) : 3306,
    })),
    user: decodeURIComponent(first.username || 'root'),
    password: decodeURIComponent(first.password),
    database: first.pathname.replace(/^\//, ''),
  };
}

/** `host:port` as a log line names it. */
export function hostLabel(h: MysqlHost): string {
  return h.host.includes(':') ? `[${h.host}]:${h.port}` : `${h.host}:${h.port}`;
}

/**
 * Errors that say the host itself is away (nothing listens, the link broke, no answer),
 * as opposed to an SQL error the server sent: only these move xtimer to the next host.
 */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
]);

export function isConnectionFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_FAILURES.has(code);
}

/**
 * The answer of a Galera node that is not part of the primary component (it lost quorum,
 * or is still joining): it takes connections but refuses statements with 1047, "WSREP has
 * not yet prepared node for application use". Another node of the list can serve them.
 */
export function isNodeNotReady(err: unknown): boolean {
  return (err as { errno?: unknown } | null)?.errno === 1047;
}

/** Errors that make xtimer try the next host of the list: the host is away, or not ready. */
export function leavesHost(err: unknown): boolean {
  return isConnectionFailure(err) || isNodeNotReady(err);
}
