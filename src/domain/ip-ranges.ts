import { BlockList, isIP } from 'node:net';

/**
 * Address ranges a callback must not reach when CALLBACK_BLOCK_PRIVATE is on (the SSRF
 * guard): this host, private networks, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, and everything that is not a unicast Internet address.
 */
const RANGES: ReadonlyArray<{ cidr: string; what: string }> = [
  { cidr: '0.0.0.0/8', what: '"this network"' },
  { cidr: '10.0.0.0/8', what: 'private (RFC 1918)' },
  { cidr: '100.64.0.0/10', what: 'carrier-grade NAT' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '169.254.0.0/16', what: 'link-local (cloud metadata)' },
  { cidr: '172.16.0.0/12', what: 'private (RFC 1918)' },
  { cidr: '192.0.0.0/24', what: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', what: 'documentation' },
  { cidr: '192.168.0.0/16', what: 'private (RFC 1918)' },
  { cidr: '198.18.0.0/15', what: 'benchmarking' },
  { cidr: '198.51.100.0/24', what: 'documentation' },
  { cidr: '203.0.113.0/24', what: 'documentation' },
  { cidr: '224.0.0.0/4', what: 'multicast' },
  { cidr: '240.0.0.0/4', what: 'reserved' },
  { cidr: '::/128', what: 'unspecified' },
  { cidr: '::1/128', what: 'loopback' },
  { cidr: '64:ff9b:1::/48', what: 'local-use NAT64' },
  { cidr: '100::/64', what: 'discard-only' },
  { cidr: '2001:db8::/32', what: 'documentation' },
  { cidr: 'fc00::/7', what: 'unique-local' },
  { cidr: 'fe80::/10', what: 'link-local' },
  { cidr: 'fec0::/10', what: 'site-local' },
  { cidr: 'ff00::/8', what: 'multicast' },
];

const lists = RANGES.map(({ cidr, what }) => {
  const [network, bits] = cidr.split('/') as [string, string];
  const type = isIP(network) === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  list.addSubnet(network, Number(bits), type);
  return { cidr, what, type, list } as const;
});

/** The IPv4 address an IPv4-mapped or -compatible IPv6 address stands for (::ffff:a.b.c.d, ::ffff:7f00:1). */
function embeddedIpv4(v6: string): string | null {
  const lower = v6.toLowerCase();
  const dotted = /^::(?:ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const hi = Number.parseInt(hex[1]!, 16);
  const lo = Number.parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Why `address` (an IP literal, IPv6 with or without brackets) is forbidden, e.g.
 * "127.0.0.1 is loopback (127.0.0.0/8)"; null if it is an ordinary unicast address
 * or not an IP address at all.
 */
export function forbiddenAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return null;
  const v4 = family === 6 ? embeddedIpv4(bare) : bare;
  const [candidate, type] = v4 !== null && isIP(v4) === 4 ? [v4, 'ipv4'] : [bare, 'ipv6'];
  for (const range of lists) {
    if (range.type === type && range.list.check(candidate, type)) {
      return `${bare} is ${range.what} (${range.cidr})`;
    }
  }
  return null;
}
