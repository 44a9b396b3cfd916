import { describe, expect, it } from 'vitest';
import { assertPublicHost, forbiddenAddressKind } from '../../../src/net/address-guard.js';

/** Every IPv6 form that carries an IPv4 address is judged by that address (docs/security.md). */
describe('address guard: IPv4 inside IPv6', () => {
  it.each([
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:169.254.169.254', 'link-local (cloud metadata)'],
    ['::ffff:0:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::10.1.2.3', 'private'],
  ])('%s is %s', (address, kind) => {
    expect(forbiddenAddressKind(address)).toBe(kind);
  });

  it('refuses such URLs as they are written by a caller', () => {
    for (const url of ['http://[::127.0.0.1]/x', 'http://[::ffff:0:10.0.0.1]/x', 'http://[::169.254.169.254]/latest/meta-data']) {
      expect(() => assertPublicHost(new URL(url)), url).toThrow();
    }
    expect(() => assertPublicHost(new URL('http://[::ffff:8.8.8.8]/x'))).not.toThrow();
  });
});
