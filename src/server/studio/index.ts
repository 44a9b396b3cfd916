import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyRecords } from '../../records/types.js';
import { cookieAuthHook, sessionRoutes, type StudioLogin } from './session.js';

/**
 * The Studio web page (docs/studio.md): built by `npm run build` into dist/studio/ (hashed file
 * names), served at `/`. Everything the page does goes through API v1; this module only adds the
 * cookie sign-in, the static files and the security headers of the page.
 */

export interface StudioOptions {
  keys: KeyRecords;
  login?: StudioLogin;
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
  if (request.url.startsWith('/api/')) return;
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
  reply.header('Cross-Origin-Resource-Policy', 'same-origin');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
}

/** Call before the API authorizer is added: the cookie must become a bearer key before it runs. */
export function registerStudio(app: FastifyInstance, options: StudioOptions): void {
  app.addHook('onRequest', async (request, reply) => securityHeaders(request, reply));
  app.addHook('onRequest', cookieAuthHook());
  sessionRoutes(app, options);

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
