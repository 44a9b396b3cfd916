import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertPublicHost, forbiddenAddressKind } from '../../../src/net/address-guard.js';

/**
 * Every IPv6 form that carries an IPv4 address is judged by that address, and IPv6's own
 * non-public ranges are refused (docs/security.md, "Outbound requests (SSRF)").
 */
describe('address guard: IPv4 inside IPv6', () => {
  it.each([
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::0.0.1.2', 'reserved'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:169.254.169.254', 'link-local (cloud metadata)'],
    ['::ffff:0:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::10.1.2.3', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    // 6to4: the IPv4 address is bits 16–47.
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local (cloud metadata)'],
    ['2002:0a00:0001:0:0:0:0:1', 'private'],
    ['2002:c0a8:101::', 'private'],
    // Teredo: server IPv4 in bits 32–63, client IPv4 inverted in the last 32 bits.
    ['2001:0:7f00:1::', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // client ~80ff:fffe = 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'], // client ~f5ff:fffe = 10.0.0.1
    // IPv6's own ranges.
    ['64:ff9b:1::a00:1', 'private'],
    ['64:ff9b:1:ffff::1', 'private'],
    ['fec0::1', 'private'],
    ['feff:ffff::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['fe80::1', 'link-local (cloud metadata)'],
    ['100::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['2001:20::1', 'reserved'],
    ['2001:2f:ffff::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['3fff:fff::1', 'reserved'],
    ['::', 'reserved'],
    ['::1', 'loopback'],
  ])('%s is %s', (address, kind) => {
    expect(forbiddenAddressKind(address)).toBe(kind);
  });

  it.each([
    '::ffff:8.8.8.8',
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2002:808:808::1', // 6to4 of 8.8.8.8
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo: server 65.54.227.120, client 8.8.8.8
    '2a00:1450:4007:80e::200e', // a public IPv6 address
    '64:ff9b:2::1', // outside the local-use NAT64 /48
    '2600::1',
    '2001:30::1', // past ORCHIDv2's /28
    '3fff:1000::1', // past the documentation /20
  ])('%s is public', (address) => {
    expect(forbiddenAddressKind(address)).toBeNull();
  });

  it('judges every IPv6 form of an IPv4 address as that address (property-based; fast-check prints the seed on failure)', () => {
    const hex = (a: number, b: number): string => ((a << 8) | b).toString(16);
    // Half the draws from the ranges that matter, half anywhere.
    const octet = fc.integer({ min: 0, max: 255 });
    const first = fc.oneof(fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255), octet);
    fc.assert(
      fc.property(fc.tuple(first, octet, octet, octet), ([a, b, c, d]) => {
        const ipv4 = `${a}.${b}.${c}.${d}`;
        const expected = forbiddenAddressKind(ipv4);
        const forms = [
          `::ffff:${ipv4}`,
          `::ffff:0:${hex(a, b)}:${hex(c, d)}`,
          `64:ff9b::${ipv4}`,
          `2002:${hex(a, b)}:${hex(c, d)}::1`,
          // Teredo with a public server (65.54.227.120) and this client.
          `2001:0:4136:e378:8000:63bf:${hex(a ^ 255, b ^ 255)}:${hex(c ^ 255, d ^ 255)}`,
        ];
        for (const form of forms) expect(forbiddenAddressKind(form), form).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps ::1 and 127.0.0.1 allowed when the policy allows loopback, and nothing else', () => {
    expect(forbiddenAddressKind('::1', { allowLoopback: true })).toBeNull();
    expect(forbiddenAddressKind('2002:7f00:1::', { allowLoopback: true })).toBeNull();
    expect(forbiddenAddressKind('2002:a00:1::', { allowLoopback: true })).toBe('private');
  });

  it('refuses such URLs as they are written by a caller', () => {
    for (const url of [
      'http://[::127.0.0.1]/x',
      'http://[::ffff:0:10.0.0.1]/x',
      'http://[::169.254.169.254]/latest/meta-data',
      'http://[2002:7f00:1::]/x',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x',
      'http://[64:ff9b:1::a00:1]/x',
      'http://[fec0::1]/x',
    ]) {
      expect(() => assertPublicHost(new URL(url)), url).toThrow();
    }
    expect(() => assertPublicHost(new URL('http://[::ffff:8.8.8.8]/x'))).not.toThrow();
    expect(() => assertPublicHost(new URL('http://[2002:808:808::1]/x'))).not.toThrow();
  });
});
