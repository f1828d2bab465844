import { describe, expect, it } from 'vitest';
import { blockedAddress, canonicalAddress } from '../../../src/domain/ip-ranges.js';

/** The SSRF guard's address ranges, from ipaddr.js's special-purpose registry. */

describe('blockedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard'],
    // IPv4-mapped: judged as the IPv4 address it is.
    ['::ffff:127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['::ffff:7f00:1', 'loopback (127.0.0.0/8)'],
    ['::ffff:169.254.169.254', 'link-local (169.254.0.0/16)'],
    ['::ffff:a00:1', 'private (RFC 1918) (10.0.0.0/8)'],
    // Transition mechanisms: refused whole (a gateway or relay decides where they lead).
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96)'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 (64:ff9b::/96)'],
    ['64:ff9b::808:808', 'NAT64 (64:ff9b::/96)'],
    ['64:ff9b:1::a00:1', 'NAT64 (64:ff9b:1::/48)'],
    ['2002:7f00:1::1', '6to4 (2002::/16)'],
    ['2002:c0a8:101::1', '6to4 (2002::/16)'],
    ['2002:808:808::1', '6to4 (2002::/16)'],
    ['2001::1', 'Teredo (2001::/32)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32)'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::127.0.0.1', 'loopback'],
  ])('blocks %s (%s)', (address, what) => {
    expect(blockedAddress(address)).toContain(what);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
  ])('allows the global unicast address %s', (address) => {
    expect(blockedAddress(address)).toBeNull();
  });

  it('says nothing about host names (they are judged on what they resolve to)', () => {
    expect(blockedAddress('localhost')).toBeNull();
    expect(blockedAddress('example.com')).toBeNull();
  });
});

describe('canonicalAddress', () => {
  it('spells an address one way, whichever way it was written', () => {
    expect(canonicalAddress('[::1]')).toBe('::1');
    expect(canonicalAddress('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('localhost')).toBeNull();
  });
});
