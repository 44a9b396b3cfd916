import type { AuthAttempts } from '../auth-throttle.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { networkInterfaces } from 'node:os';
import type { SessionLifetime } from '../../records/studio-sessions.js';
import type { RecordStore } from '../../records/types.js';
import { isLoopback, servedHosts } from './request-guard.js';
import { sessionRoutes, studioRequestHook, type StudioLogin } from './session.js';

/**
 * The Studio web page (docs/studio.md): built by `npm run build` into dist/studio/ (hashed file
 * names), served at `/`. Everything the page does goes through API v1; this module only adds the
 * cookie sign-in, the static files and the security headers of the page.
 */

export interface StudioOptions {
  /** Failed sign-ins per address (../auth-throttle.ts), shared with the API's key checks. */
  attempts?: AuthAttempts;
  records: Pick<RecordStore, 'keys' | 'sessions'>;
  login?: StudioLogin;
  /** The address the server listens on (default 127.0.0.1): the Studio answers at its names (./request-guard.ts). */
  bindHost?: string;
  /** `--public-host`: names the Studio answers to besides those of the bound address. */
  publicHosts?: readonly string[];
  /** `--trust-proxy`. */
  trustProxy?: boolean;
  /** How long a sign-in lasts (default: 2 h idle, 12 h in all). */
  sessionLifetime?: SessionLifetime;
  /** Where the built page is (default: dist/studio of this package). */
  root?: string;
}

/** The package root, from src/server/studio (tsx) or dist/server/studio (built): three levels up. */
export const STUDIO_ROOT = fileURLToPath(new URL('../../../dist/studio/', import.meta.url));

/** File names with a content hash never change: cache them for a year (RFC 8246 `immutable`). */
const HASHED_FILE = /-[A-Z0-9]{8}\.(?:js|css|svg|woff2)$/;

/**
 * The page's policy: scripts and styles from our own origin only (no inline code), media and
 * images from our origin or the page's own blob: previews, no framing at all.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  // API answers too: no other site may embed them (an <img>, a <video>) with the visitor's cookie.
  // CORS requests (--cors-origin) are not affected: the policy applies to no-cors loads only.
  reply.header('Cross-Origin-Resource-Policy', 'same-origin');
  if (request.url.startsWith('/api/')) return;
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('Referrer-Policy', 'no-referrer');
  // Browsers apply COOP only to trustworthy origins (https, loopback) and log an error for it
  // elsewhere, e.g. on a phone reaching `studio --lan` over plain http (docs/studio.md "Security").
  if (request.protocol === 'https' || isLoopback(request.hostname)) reply.header('Cross-Origin-Opener-Policy', 'same-origin');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
}

/** Call before the API authorizer is added: the cookie must name its session's key before it runs. */
export function registerStudio(app: FastifyInstance, options: StudioOptions): void {
  const session = {
    records: options.records,
    login: options.login,
    hosts: servedHosts(options.bindHost ?? '127.0.0.1', options.publicHosts ?? [], networkInterfaces()),
    trustProxy: options.trustProxy === true,
    lifetime: options.sessionLifetime,
    attempts: options.attempts,
  };
  app.decorateRequest('studioKey', null);
  app.addHook('onRequest', async (request, reply) => securityHeaders(request, reply));
  app.addHook('onRequest', studioRequestHook(session));
  sessionRoutes(app, session);

  const root = options.root ?? STUDIO_ROOT;
  if (!existsSync(join(root, 'index.html'))) {
    app.get('/', async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The Studio page is not built: run `npm run build`, then start the server again.\n'),
    );
    return;
  }
  // A plugin that fails to load rejects ready()/listen(), which the server awaits.
  void app.register(fastifyStatic, {
    root,
    prefix: '/',
    // One route per built file: unknown paths keep reaching the API's own 404 envelope.
    wildcard: false,
    index: ['index.html'],
    cacheControl: false,
    etag: true,
    lastModified: true,
    setHeaders(res, path) {
      res.setHeader('Cache-Control', HASHED_FILE.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
