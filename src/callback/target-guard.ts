import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { parseAllowedHost } from '../domain/allowed-host.js';
import { blockedAddress, canonicalAddress } from '../domain/ip-ranges.js';
import { ErrorCode, XtimerError } from '../errors.js';
import type { Logger } from '../observability/logger.js';

export interface TargetPolicy {
  /** CALLBACK_BLOCK_PRIVATE: refuse loopback, private, link-local, CGNAT, … targets. */
  blockPrivate: boolean;
  /**
   * CALLBACK_ALLOW_HOSTS: host names exempt from the block, whatever they resolve to, and IP
   * addresses that may be called; each at every port, or as `host:port` at that one only.
   * An address with a port is allowed only when the URL names it: a name's port is not
   * known when its addresses are checked at connect time.
   */
  allowHosts: readonly string[];
}

/** The error code of a refused target, on create/update (400) and on the call (a final failure). */
export const TARGET_BLOCKED = 'TARGET_BLOCKED';

export class TargetBlockedError extends Error {
  readonly code = TARGET_BLOCKED;
  constructor(message: string) {
    super(message);
    this.name = 'TargetBlockedError';
  }
}

type Resolve = (host: string) => Promise<LookupAddress[]>;

export interface TargetGuardOptions {
  resolve?: Resolve | undefined;
  /** Where a refused name's address is told: the admin's log, never the caller. */
  logger?: Logger | undefined;
}

/** What a refusal of a name says of where it leads: that it is inside, not which address. */
const NOT_PUBLIC = 'a non-public address';
/** Refused (name, address) pairs logged since the set was last emptied: one line each, not one a request. */
const REPORTED_MAX = 1024;

const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  );

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The SSRF guard (docs/security.md). Checked twice: when a callback URL is stored (its
 * host, or every address it resolves to now), and on every connection, through the
 * `lookup` undici's connector hands to net.connect — so the address actually dialled is
 * the one checked, and a DNS answer that changes in between (rebinding) gains nothing.
 * Redirects are never followed (undici's dispatcher does not), so a 30x cannot lead past it.
 *
 * A refused name is answered as leading to "a non-public address", never which one: the
 * answer would otherwise map the network around xtimer one lookup at a time. The address
 * goes to the log.
 */
/** The ports a listed host may be called at; null: every port. */
type AllowedPorts = ReadonlySet<number> | null;

/** A URL's port, the scheme's default when it names none. */
const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** CALLBACK_ALLOW_HOSTS by host: a bare entry allows every port, `host:port` entries their ports. */
function allowList(
  entries: readonly string[],
  key: (host: string) => string | null,
): Map<string, AllowedPorts> {
  const list = new Map<string, AllowedPorts>();
  for (const entry of entries) {
    const parsed = parseAllowedHost(entry);
    const k = parsed && key(parsed.host);
    if (!parsed || k === null) continue;
    const ports = list.get(k);
    if (ports === null) continue;
    list.set(k, parsed.port === null ? null : new Set([...(ports ?? []), parsed.port]));
  }
  return list;
}

/** Whether `ports` (a list entry, or none) allows `port` (null: any port will not do, only a bare entry). */
function allows(ports: AllowedPorts | undefined, port: number | null): boolean {
  if (ports === undefined) return false;
  return ports === null || (port !== null && ports.has(port));
}

export class TargetGuard {
  private readonly allowNames: ReadonlyMap<string, AllowedPorts>;
  private readonly allowAddresses: ReadonlyMap<string, AllowedPorts>;
  private readonly resolve: Resolve;
  private readonly logger: Logger | undefined;
  private readonly reported = new Set<string>();

  constructor(
    readonly policy: TargetPolicy,
    options: TargetGuardOptions = {},
  ) {
    this.resolve = options.resolve ?? systemResolve;
    this.logger = options.logger;
    this.allowNames = allowList(policy.allowHosts, (host) => (canonicalAddress(host) === null ? host : null));
    this.allowAddresses = allowList(policy.allowHosts, canonicalAddress);
  }

  get active(): boolean {
    return this.policy.blockPrivate;
  }

  /** The ports CALLBACK_ALLOW_HOSTS lists a host name at (undefined: not listed). */
  private nameAllowance(host: string): AllowedPorts | undefined {
    return this.allowNames.get(host.toLowerCase().replace(/\.$/, ''));
  }

  /**
   * Why `address` may not be called at `port`, unless CALLBACK_ALLOW_HOSTS lists it; null
   * if it may. `port` null: an address a name resolved to, which only a bare entry allows.
   */
  private blocked(address: string, port: number | null): string | null {
    const why = blockedAddress(address);
    if (why === null) return null;
    const ports = this.allowAddresses.get(canonicalAddress(address)!);
    if (allows(ports, port)) return null;
    return ports ? `${why}, listed in CALLBACK_ALLOW_HOSTS only at port ${[...ports].join(', ')}` : why;
  }

  /** `localhost` and `*.localhost` name this machine whatever DNS says (RFC 6761). */
  private reservedName(host: string): string | null {
    return /(^|\.)localhost\.?$/i.test(host) ? `callback host ${host} is loopback (a localhost name)` : null;
  }

  /**
   * Why the host of `url` may not be called, judged without DNS: an IP literal, or a name
   * CALLBACK_ALLOW_HOSTS lists only at other ports; null if fine so far. Checked on every
   * call as well (HttpCaller), where the connect-time lookup no longer knows the port.
   */
  literalProblem(url: URL): string | null {
    if (!this.active) return null;
    const port = portOf(url);
    const named = this.nameAllowance(url.hostname);
    if (named !== undefined) {
      return allows(named, port)
        ? null
        : `callback host ${url.hostname} is listed in CALLBACK_ALLOW_HOSTS only at port ${[...(named ?? [])].join(', ')}, not ${port}`;
    }
    const why = this.blocked(url.hostname, port);
    return why === null ? null : `callback host ${url.hostname}: ${why}`;
  }

  /**
   * Why `rawUrl` may not be stored as a callback, if it may not: its host is, or resolves
   * to, a blocked address. A name that does not resolve (yet) passes: the call-time
   * check still stands between it and a private address.
   */
  async urlProblem(rawUrl: string): Promise<string | null> {
    if (!this.active) return null;
    const url = new URL(rawUrl);
    const literal = this.literalProblem(url);
    if (literal !== null || this.nameAllowance(url.hostname) !== undefined) return literal;
    const reserved = this.reservedName(url.hostname);
    if (reserved !== null || isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) return reserved;
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(url.hostname);
    } catch {
      return null;
    }
    for (const a of addresses) {
      const why = this.blocked(a.address, null);
      if (why !== null) return this.refusedName(url.hostname, why);
    }
    return null;
  }

  /** The refusal of a name that resolved to a blocked address: the address to the log only. */
  private refusedName(host: string, why: string): string {
    const key = `${host} ${why}`;
    if (this.logger && !this.reported.has(key)) {
      if (this.reported.size >= REPORTED_MAX) this.reported.clear();
      this.reported.add(key);
      this.logger.warn({ host, resolved: why }, 'callback host refused: it resolves to a non-public address');
    }
    return `callback host ${host} resolves to ${NOT_PUBLIC}`;
  }

  /** Refuses (400 TARGET_BLOCKED, naming `field`) a URL that may not be stored as a target. */
  async assertAllowed(rawUrl: string, field: string): Promise<void> {
    const problem = await this.urlProblem(rawUrl);
    if (problem === null) return;
    // A host listed at other ports needs this port listed too, not the host again.
    const url = new URL(rawUrl);
    const hint = problem.includes('only at port')
      ? `add ${url.hostname}:${portOf(url)} to CALLBACK_ALLOW_HOSTS to call it anyway`
      : 'list the host in CALLBACK_ALLOW_HOSTS to call it anyway';
    const message = `${problem}; ${hint}`;
    throw new XtimerError(ErrorCode.TARGET_BLOCKED, `${field}: ${message}`, [{ path: field, message }]);
  }

  /**
   * A `lookup` for net.connect: resolves as usual, then refuses (TargetBlockedError)
   * if any address is blocked and the host is not allowlisted.
   */
  readonly lookup = (hostname: string, options: LookupOptions | number, callback: LookupCallback): void => {
    const opts: LookupOptions = typeof options === 'number' ? { family: options } : (options ?? {});
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) {
        callback(err, opts.all ? [] : '');
        return;
      }
      // A listed name's port was checked with the URL (literalProblem); here none is known.
      if (this.active && this.nameAllowance(hostname) === undefined) {
        for (const a of addresses) {
          const why = this.blocked(a.address, null);
          if (why !== null) {
            callback(new TargetBlockedError(this.refusedName(hostname, why)), opts.all ? [] : '');
            return;
          }
        }
      }
      if (opts.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
