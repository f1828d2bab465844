import { isIP } from 'node:net';

/**
 * An entry of CALLBACK_ALLOW_HOSTS: a host name or IP address, and the one port it is
 * allowed at (null: every port). `127.0.0.1:9000` lets callbacks reach a local receiver
 * without opening the machine's other ports (xtimer's own /metrics among them).
 */
export interface AllowedHost {
  /** Lower case, without a trailing dot or IPv6 brackets. */
  host: string;
  port: number | null;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Reads `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address; null if it is none of them. */
export function parseAllowedHost(text: string): AllowedHost | null {
  const entry = text.trim().toLowerCase();
  let host = entry;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
    if (isIP(host) !== 6) return null;
  } else if (entry.split(':').length === 2) {
    [host, port] = entry.split(':') as [string, string];
  }
  host = host.replace(/\.$/, '');
  if (!HOST_NAME.test(host) && isIP(host) === 0) return null;
  if (port === undefined) return { host, port: null };
  const n = Number(port);
  return /^\d{1,5}$/.test(port) && n >= 1 && n <= 65_535 ? { host, port: n } : null;
}

/** The entry as it is written: `host`, `host:port`, `[v6]:port`. */
export function formatAllowedHost({ host, port }: AllowedHost): string {
  if (port === null) return host;
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
