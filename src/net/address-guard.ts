import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Server-side fetches (listing pages, photos, logos, webhooks) may only reach public addresses
 * (docs/api.md): a URL given by an API caller must not let it probe the server's own network.
 * The check runs on every hop of a redirect chain and on the addresses DNS actually returned,
 * so a public name that resolves to 127.0.0.1 or 169.254.169.254 is refused too.
 */

/** Thrown (or passed to a socket's lookup callback) when an address is refused. */
export class ForbiddenAddressError extends Error {
  readonly code = 'IMMOREEL_FORBIDDEN_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: string,
  ) {
    super(`${host} resolves to ${address}, a ${kind} address`);
    this.name = 'ForbiddenAddressError';
  }
}

export interface AddressPolicy {
  /** Tests run servers on 127.0.0.1: they opt in explicitly; nothing else is ever allowed. */
  allowLoopback?: boolean;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Non-public ranges (RFC 6890 special-purpose registries), metadata endpoints included. */
const nonPublic: [BlockList, string][] = [];
function ranges(kind: string, subnets: [string, number, 'ipv4' | 'ipv6'][]): void {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  nonPublic.push([list, kind]);
}
ranges('private', [
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['fc00::', 7, 'ipv6'], // unique local, includes AWS's fd00:ec2::254 metadata address
]);
ranges('link-local (cloud metadata)', [
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
ranges('reserved', [
  ['0.0.0.0', 8, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved + broadcast
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
]);

ranges('private', [
  ['fec0::', 10, 'ipv6'], // site-local, deprecated (RFC 3879) but still routed inside some sites
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64 (RFC 8215): translates to the site's own IPv4 networks
]);
ranges('reserved', [
  ['100::', 64, 'ipv6'], // discard-only (RFC 6666)
  ['2001:2::', 48, 'ipv6'], // benchmarking (RFC 5180)
  ['2001:20::', 28, 'ipv6'], // ORCHIDv2 (RFC 7343): identifiers, not routable locators
  ['3fff::', 20, 'ipv6'], // documentation (RFC 9637), beside 2001:db8::/32
]);

/** The eight 16-bit groups of an IPv6 literal (`::` expanded, a dotted IPv4 tail read), or null. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const part = (half: string | undefined): number[] =>
    half === undefined || half === '' ? [] : half.split(':').map((g) => parseInt(g, 16));
  const head = part(halves[0]);
  const rest = part(halves[1]);
  return halves.length === 1 ? head : [...head, ...Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

const ipv4Of = (high: number, low: number): string => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 addresses an IPv6 one carries, or null (docs/security.md, "Outbound requests (SSRF)"):
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), the deprecated IPv4-compatible
 * form (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16, the IPv4 in bits 16–47) and Teredo
 * (2001::/32: the server's IPv4 in bits 32–63, the client's in the last 32 bits, inverted). Each
 * reaches that IPv4 host through a dual-stack machine or a relay, so each is judged by it.
 */
function embeddedIpv4(address: string): string[] | null {
  const g = ipv6Groups(address);
  if (g === null || g.length !== 8) return null;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number): boolean => g.slice(0, n).every((v) => v === 0);
  if (zeroTo(5) && g5 === 0xffff) return [ipv4Of(g6, g7)];
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return [ipv4Of(g6, g7)];
  // `::1` and `::` are IPv6's own loopback and unspecified addresses, not IPv4-compatible ones.
  if (zeroTo(6) && !(g6 === 0 && g7 <= 1)) return [ipv4Of(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [ipv4Of(g6, g7)];
  if (g0 === 0x2002) return [ipv4Of(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)];
  return null;
}

/** Why `address` (an IP literal) may not be fetched, or null when it is public. */
export function forbiddenAddressKind(address: string, policy: AddressPolicy = {}): string | null {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const inner = embeddedIpv4(bare);
  if (inner !== null) {
    for (const ipv4 of inner) {
      const kind = forbiddenAddressKind(ipv4, policy);
      if (kind !== null) return kind;
    }
    return null;
  }
  const family = isIP(bare);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(bare, type)) return policy.allowLoopback ? null : 'loopback';
  for (const [list, kind] of nonPublic) if (list.check(bare, type)) return kind;
  return null;
}

/** Checks a URL's host before any connection: IP literals and names that are local by definition. */
export function assertPublicHost(url: URL, policy: AddressPolicy = {}): void {
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) {
    if (!policy.allowLoopback) throw new ForbiddenAddressError(host, host, 'loopback');
    return;
  }
  if (host === 'metadata.google.internal' || host.endsWith('.internal') || host.endsWith('.local')) {
    throw new ForbiddenAddressError(host, host, 'private');
  }
  const kind = forbiddenAddressKind(host, policy);
  if (kind !== null) throw new ForbiddenAddressError(host, host, kind);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that refuses the connection when any address the name
 * resolves to is not public. The socket connects to the address checked here, so a DNS
 * answer cannot change between the check and the connection.
 */
export function guardedLookup(policy: AddressPolicy = {}) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const all: LookupAllOptions = { ...options, all: true };
    dnsLookup(hostname, all, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      for (const entry of addresses) {
        const kind = forbiddenAddressKind(entry.address, policy);
        if (kind !== null) {
          callback(new ForbiddenAddressError(hostname, entry.address, kind) as unknown as NodeJS.ErrnoException, []);
          return;
        }
      }
      if (addresses.length === 0) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  };
}

/** The ForbiddenAddressError somewhere in an error's cause chain, if any. */
export function findForbiddenAddress(error: unknown): ForbiddenAddressError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    if (current instanceof ForbiddenAddressError) return current;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return null;
}
