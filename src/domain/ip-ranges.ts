import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a callback may not reach (the SSRF guard, docs/security.md): every
 * address that is not ordinary global unicast by the IANA special-purpose registries, as
 * ipaddr.js keeps them — this host, private networks, link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, multicast, reserved and documentation ranges.
 *
 * IPv6 forms of IPv4 are judged two ways. An IPv4-mapped address (::ffff:a.b.c.d) is
 * that IPv4 address to the socket, so it is judged as one. The transition mechanisms —
 * NAT64 (64:ff9b::/96, local-use 64:ff9b:1::/48), 6to4 (2002::/16), Teredo (2001::/32),
 * IPv4-translated and the deprecated IPv4-compatible ::/96 — are refused whole: where
 * they lead is decided by a gateway or relay xtimer cannot see, and a public receiver
 * has a plain address to be called at.
 */

/** What each ipaddr.js range name means, for the refusal message. */
const MEANING: Record<string, string> = {
  unspecified: 'unspecified ("this network")',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private (RFC 1918)',
  reserved: 'reserved or documentation',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
};

/** ::/96 less :: and ::1: IPv4-compatible IPv6 (deprecated by RFC 4291); ipaddr.js counts it unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

type Subnet = [ipaddr.IPv4 | ipaddr.IPv6, number];
/** ipaddr.js's registry behind range(), untyped in its declarations. */
type WithRanges = { SpecialRanges: Record<string, Subnet | Subnet[]> };

/** The registry subnet `address` falls in under `range`, as CIDR text. */
function subnetOf(address: ipaddr.IPv4 | ipaddr.IPv6, range: string): string {
  const entry = (address as unknown as WithRanges).SpecialRanges[range];
  const subnets = (entry === undefined ? [] : Array.isArray(entry[0]) ? entry : [entry]) as Subnet[];
  const match = subnets.find(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
  return match ? `${match[0].toString()}/${match[1]}` : range;
}

/**
 * Why `address` (an IP literal, IPv6 with or without brackets) may not be called, e.g.
 * "127.0.0.1 is loopback (127.0.0.0/8)"; null if it is global unicast or not an IP
 * address at all (host names are judged on what they resolve to).
 */
export function blockedAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return null;
  const parsed = ipaddr.process(bare);
  const range = parsed.range();
  if (range !== 'unicast') {
    return `${bare} is ${MEANING[range] ?? `special-purpose (${range})`} (${subnetOf(parsed, range)})`;
  }
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) {
    return `${bare} is IPv4-compatible IPv6 (::/96, deprecated)`;
  }
  return null;
}

/** One spelling per address (IPv4-mapped IPv6 as its IPv4), to compare allowlisted literals; null if not an IP. */
export function canonicalAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  return isIP(bare) === 0 ? null : ipaddr.process(bare).toString();
}
