import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../core/errors.js';
import type { KeyRecords } from '../../records/types.js';

/**
 * The Studio's sign-in (docs/studio.md, "Security"). The page never holds the API key: it sits in
 * an HttpOnly, SameSite=Strict session cookie, and a hook turns that cookie into the
 * `Authorization` header API v1 already understands, so every route keeps its scopes, rate limits
 * and quotas. A request that changes state with the cookie must also carry the CSRF token (an HMAC
 * of the key the attacker cannot compute) and, when the browser sends one, a same-origin `Origin`.
 */

export const SESSION_COOKIE = 'immoreel_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const KEY_SHAPE = /^[A-Za-z0-9._~+/-]+=*$/;

/** A one-time sign-in link handed out by `immoreel studio`. */
export interface StudioLogin {
  token: string;
  apiKey: string;
}

export interface SessionOptions {
  keys: KeyRecords;
  /** Set by `immoreel studio`: the link's token works once, then is forgotten. */
  login?: StudioLogin;
}

export function csrfTokenFor(apiKey: string): string {
  return createHmac('sha256', apiKey).update('immoreel studio csrf v1').digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Cookie header → value of one cookie (RFC 6265 §5.2; our values never need decoding). */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function forbidden(message: string, reason: string): AppError {
  return new AppError('INSUFFICIENT_SCOPE', message, { reason });
}

/** A browser tells where a request comes from; anything but this very origin is refused. */
function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin !== undefined && (host === undefined || (origin !== `http://${host}` && origin !== `https://${host}`))) {
    throw forbidden('Cross-site request refused: the Studio only accepts requests from its own page.', 'cross_origin');
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw forbidden('Cross-site request refused: the Studio only accepts requests from its own page.', 'cross_origin');
  }
}

function sessionKey(request: FastifyRequest): string | null {
  const value = cookieValue(request.headers.cookie, SESSION_COOKIE);
  return value !== null && value !== '' && KEY_SHAPE.test(value) ? value : null;
}

function setSession(request: FastifyRequest, reply: FastifyReply, apiKey: string): void {
  // Secure when the page is served over https (behind a proxy that says so); loopback is http.
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('Set-Cookie', `${SESSION_COOKIE}=${apiKey}; Path=/; HttpOnly; SameSite=Strict${secure}`);
}

/**
 * `onRequest`, before the API's own authorizer: a request without `Authorization` but with the
 * session cookie is authenticated by the cookie, after the CSRF checks for unsafe methods.
 */
export function cookieAuthHook() {
  return async function cookieAuth(request: FastifyRequest): Promise<void> {
    if (request.headers.authorization !== undefined) return;
    if (!request.url.startsWith('/api/')) return;
    const apiKey = sessionKey(request);
    if (apiKey === null) return;
    if (!SAFE_METHODS.has(request.method)) {
      checkOrigin(request);
      const token = request.headers[CSRF_HEADER];
      if (typeof token !== 'string' || !sameText(token, csrfTokenFor(apiKey))) {
        throw forbidden('Missing or wrong CSRF token: reload the Studio page and try again.', 'csrf_token');
      }
    }
    request.headers.authorization = `Bearer ${apiKey}`;
  };
}

/** Sign in (key or one-time link), who am I, sign out. Outside /api/v1: they are the page's plumbing, not API. */
export function sessionRoutes(app: FastifyInstance, options: SessionOptions): void {
  let login = options.login;

  app.get('/studio/session', async (request, reply) => {
    checkOrigin(request);
    reply.header('Cache-Control', 'no-store');
    const apiKey = sessionKey(request);
    const record = apiKey === null ? null : await options.keys.authenticate(apiKey);
    if (apiKey === null || record === null) return { ok: true, signed_in: false };
    return {
      ok: true,
      signed_in: true,
      tenant: record.tenant,
      masked_key: record.masked_key,
      plan: record.plan,
      csrf_token: csrfTokenFor(apiKey),
    };
  });

  app.post('/studio/session', async (request, reply) => {
    checkOrigin(request);
    reply.header('Cache-Control', 'no-store');
    const body = request.body as { api_key?: unknown } | null;
    const apiKey = typeof body?.api_key === 'string' ? body.api_key.trim() : '';
    if (apiKey === '')
      throw badRequest('Paste your API key (it starts with imk_).', {
        reason: 'missing_key',
        details: [{ field: 'api_key', message: 'required' }],
      });
    const record = KEY_SHAPE.test(apiKey) ? await options.keys.authenticate(apiKey) : null;
    if (record === null) {
      throw new AppError('UNAUTHORIZED', 'Invalid API key: it is unknown or was revoked. Create one with `immoreel keys create`.', {
        reason: 'invalid_key',
      });
    }
    setSession(request, reply, apiKey);
    return {
      ok: true,
      signed_in: true,
      tenant: record.tenant,
      masked_key: record.masked_key,
      plan: record.plan,
      csrf_token: csrfTokenFor(apiKey),
    };
  });

  app.delete('/studio/session', async (request, reply) => {
    checkOrigin(request);
    const apiKey = sessionKey(request);
    const token = request.headers[CSRF_HEADER];
    if (apiKey !== null && (typeof token !== 'string' || !sameText(token, csrfTokenFor(apiKey)))) {
      throw forbidden('Missing or wrong CSRF token: reload the Studio page and try again.', 'csrf_token');
    }
    reply.header('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    return { ok: true, signed_in: false };
  });

  // The link `immoreel studio` prints: the token is spent on first use, like Jupyter's.
  app.get('/studio/login', async (request, reply) => {
    const token = (request.query as { token?: unknown }).token;
    const current = login;
    if (current !== undefined && typeof token === 'string' && sameText(token, current.token)) {
      login = undefined;
      setSession(request, reply, current.apiKey);
      return reply.code(303).header('Location', '/').header('Cache-Control', 'no-store').send();
    }
    return reply.code(303).header('Location', '/?signin=link_used').header('Cache-Control', 'no-store').send();
  });
}
