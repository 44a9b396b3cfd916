import { isIP } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';

/**
 * Where a browser request to the Studio may come from (docs/security.md "Studio sessions"): the
 * host names this server serves (against DNS rebinding: a page of `attacker.example` whose name
 * now points at this server), and this server's own origin (against cross-site requests carrying
 * the cookie). Bearer-key API calls are not checked here: they carry no ambient credential.
 */

/** Names every loopback listener answers to (`localhost` resolves to either address). */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A host as it appears in `Host` without its port: lower case, IPv6 in brackets. */
export function hostForm(address: string): string {
  const host = address.trim().toLowerCase();
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** `localhost`, `127.x.x.x` or `::1` (bracketed or not): an origin browsers trust over plain http. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/**
 * The host names a server bound to `bindHost` serves: that address; for a loopback address the
 * loopback names too; for a wildcard address (`0.0.0.0`, `::`) every address of this machine's
 * interfaces (IP literals cannot be rebound); plus the names given with `--public-host`. Any other
 * name is one the operator must state.
 */
export function servedHosts(
  bindHost: string,
  publicHosts: readonly string[],
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = {},
): Set<string> {
  const hosts = new Set(publicHosts.map(hostForm));
  const bind = hostForm(bindHost);
  const wildcard = bind === '0.0.0.0' || bind === '[::]' || bind === '';
  if (!wildcard) hosts.add(bind);
  if (wildcard || isLoopback(bind)) for (const name of LOOPBACK_NAMES) hosts.add(name);
  if (wildcard) {
    for (const list of Object.values(interfaces)) for (const info of list ?? []) hosts.add(hostForm(info.address.split('%')[0]!));
  }
  return hosts;
}

function refused(message: string, reason: string): AppError {
  return new AppError('INSUFFICIENT_SCOPE', message, { reason });
}

/** Refuses a request addressed to a name this server does not serve (403 `unknown_host`). */
export function checkHost(request: FastifyRequest, hosts: ReadonlySet<string>): void {
  const name = request.hostname.toLowerCase();
  if (hosts.has(name)) return;
  throw refused(
    `This server does not serve the Studio under the name ${JSON.stringify(name.slice(0, 100))}. If that is its public name, start it with --public-host ${name === '' ? 'NAME' : name.slice(0, 100)} (or IMMOREEL_PUBLIC_HOST); otherwise open it at the address it listens on.`,
    'unknown_host',
  );
}

/**
 * A browser says where a request comes from: `Sec-Fetch-Site` must be `same-origin` or `none` (a
 * typed address, a bookmark) — `same-site` is refused too, since another port of the same host is
 * "same site" — and `Origin`, when sent, must be this server's own. Without a trusted proxy the
 * scheme of this server is unknown (TLS may end at a proxy), so either scheme is accepted for this
 * host; with `--trust-proxy` only the one the proxy reports.
 */
export function checkSameOrigin(request: FastifyRequest, trustProxy: boolean): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin?.toLowerCase();
  const host = request.host.toLowerCase();
  const own = trustProxy ? [`${request.protocol}://${host}`] : [`http://${host}`, `https://${host}`];
  if ((site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && !own.includes(origin))) {
    throw refused('Cross-site request refused: the Studio only accepts requests from its own page.', 'cross_origin');
  }
}
