import type { AuthAttempts } from '../auth-throttle.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../core/errors.js';
import { DEFAULT_SESSION_LIFETIME, SESSION_TOKEN_PATTERN, type SessionLifetime } from '../../records/studio-sessions.js';
import type { ApiKeyRecord, RecordStore } from '../../records/types.js';
import { withHeaders } from '../errors.js';
import { checkHost, checkSameOrigin } from './request-guard.js';

/**
 * The Studio's sign-in (docs/studio.md "Security", docs/security.md "Studio sessions"). The page
 * never holds the API key, and neither does its cookie: signing in with a key opens a server-side
 * session, and the HttpOnly, SameSite=Strict cookie carries only that session's random token
 * (stored hashed). A hook running before the API's authorizer resolves the cookie to the session's
 * key, so every route keeps its scopes, rate limits and quotas. Every request made with the cookie
 * must come from this server's own page (Origin, Fetch Metadata) at a host name it serves; one
 * that changes state must also carry the CSRF token, an HMAC of the session token.
 */

/** Over plain http (loopback): the name without prefix, since `__Host-` cookies need `Secure`. */
export const SESSION_COOKIE = 'immoreel_session';
/** Over https (directly or through a trusted proxy): host-only, Path=/, Secure — no other site can set it. */
export const SECURE_SESSION_COOKIE = '__Host-immoreel_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const KEY_SHAPE = /^[A-Za-z0-9._~+/-]+=*$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The key of the Studio session the cookie named; the API's authorizer uses it instead of a bearer key. */
    studioKey: ApiKeyRecord | null;
  }
}

/** A one-time sign-in link handed out by `immoreel studio`. */
/**
 * The sign-in links of `immoreel studio` (docs/studio.md "From a phone or another device"): each
 * token works once; the first is printed at start, another is made for each device asked for
 * (the terminal's Enter, or the page's "Connect another device").
 */
export interface StudioLogin {
  apiKey: string;
  /** The tokens not used yet. */
  tokens: Set<string>;
  /** The addresses another device reaches the Studio at (`--lan`); empty when it listens on loopback only. */
  deviceHosts: readonly string[];
}

/** A new one-time sign-in token (192 random bits), added to the live ones. */
export function newLoginToken(login: StudioLogin): string {
  const token = randomBytes(24).toString('base64url');
  login.tokens.add(token);
  return token;
}

export interface SessionOptions {
  records: Pick<RecordStore, 'keys' | 'sessions'>;
  /** Set by `immoreel studio`: the link's token works once, then is forgotten. */
  login?: StudioLogin;
  /** The host names Studio requests may be addressed to (./request-guard.ts `servedHosts`). */
  hosts: ReadonlySet<string>;
  /** `--trust-proxy`: the scheme a proxy reports is believed (fastify's `trustProxy` is set too). */
  trustProxy: boolean;
  lifetime?: SessionLifetime;
  /** Failed sign-ins per address (../auth-throttle.ts): past the limit, a 429 before the key is looked up. */
  attempts?: AuthAttempts;
}

/** The CSRF token of a session: only the page (told it by `GET /studio/session`) or a holder of the token can present it. */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('immoreel studio csrf v2').digest('base64url');
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

function secure(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/** The cookie name of this request's scheme: over https only the `__Host-` one is read or written. */
export function sessionCookieName(request: FastifyRequest): string {
  return secure(request) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** The session token the cookie carries, or null (none, or not of our shape). */
function sessionToken(request: FastifyRequest): string | null {
  const value = cookieValue(request.headers.cookie, sessionCookieName(request));
  return value !== null && SESSION_TOKEN_PATTERN.test(value) ? value : null;
}

function cookieAttributes(request: FastifyRequest): string {
  // No Max-Age: the cookie goes when the browser closes; the server ends the session anyway.
  return `Path=/; HttpOnly; SameSite=Strict${secure(request) ? '; Secure' : ''}`;
}

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header('Set-Cookie', `${sessionCookieName(request)}=${token}; ${cookieAttributes(request)}`);
}

export function clearingCookie(request: FastifyRequest): string {
  return `${sessionCookieName(request)}=; ${cookieAttributes(request)}; Max-Age=0`;
}

function checkCsrf(request: FastifyRequest, token: string): void {
  const sent = request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !sameText(sent, csrfTokenFor(token))) {
    throw forbidden('Missing or wrong CSRF token: reload the Studio page and try again.', 'csrf_token');
  }
}

/** 401 for a cookie whose session is over; the answer clears the cookie, so the page is signed out cleanly. */
function sessionEnded(request: FastifyRequest): AppError {
  return withHeaders(
    new AppError('UNAUTHORIZED', 'Your Studio session has ended (signed out, expired, or its API key was revoked): sign in again.', {
      reason: 'session_ended',
    }),
    { 'Set-Cookie': clearingCookie(request) },
  );
}

/**
 * `onRequest`, before the API's own authorizer. Studio routes (everything outside /api/) answer
 * only at a served host name. An API request without `Authorization` but with the session
 * cookie must be at a served host, from this origin, with the CSRF token if it changes state,
 * and its session must be live; it then acts with the session's key.
 */
export function studioRequestHook(options: SessionOptions) {
  const lifetime = options.lifetime ?? DEFAULT_SESSION_LIFETIME;
  return async function studioRequest(request: FastifyRequest): Promise<void> {
    if (!request.url.startsWith('/api/')) {
      // A share link's page is public and reads no cookie: it answers at any name (docs/api.md "Share links").
      if (request.url.startsWith('/s/')) return;
      checkHost(request, options.hosts);
      return;
    }
    if (request.headers.authorization !== undefined) return;
    const cookie = cookieValue(request.headers.cookie, sessionCookieName(request));
    if (cookie === null || cookie === '') return;
    checkHost(request, options.hosts);
    checkSameOrigin(request, options.trustProxy);
    // Not a session token at all (a cookie of an older immoreel held the key itself): ended, and cleared.
    const token = SESSION_TOKEN_PATTERN.test(cookie) ? cookie : null;
    if (token === null) throw sessionEnded(request);
    if (!SAFE_METHODS.has(request.method)) checkCsrf(request, token);
    const found = await options.records.sessions.authenticate(token, lifetime);
    if (found === null) throw sessionEnded(request);
    request.studioKey = found.key;
  };
}

function signedIn(key: ApiKeyRecord, token: string) {
  return { ok: true, signed_in: true, tenant: key.tenant, masked_key: key.masked_key, plan: key.plan, csrf_token: csrfTokenFor(token) };
}

/** The largest sign-in body: `{"api_key":"imk_…"}` is under 100 bytes. */
const SIGN_IN_BODY_LIMIT_BYTES = 4 * 1024;

/** Sign in (key or one-time link), who am I, sign out. Outside /api/v1: they are the page's plumbing, not API. */
export function sessionRoutes(app: FastifyInstance, options: SessionOptions): void {
  const login = options.login;
  const lifetime = options.lifetime ?? DEFAULT_SESSION_LIFETIME;
  const { keys, sessions } = options.records;

  /** A new session for `key`; a session the browser already had is ended first (one cookie, one session). */
  async function openSession(request: FastifyRequest, reply: FastifyReply, key: ApiKeyRecord): Promise<string> {
    const previous = sessionToken(request);
    if (previous !== null) await sessions.end(previous);
    const { token } = await sessions.create(key, lifetime);
    setSessionCookie(request, reply, token);
    return token;
  }

  app.get('/studio/session', async (request, reply) => {
    checkSameOrigin(request, options.trustProxy);
    reply.header('Cache-Control', 'no-store');
    const token = sessionToken(request);
    const found = token === null ? null : await sessions.authenticate(token, lifetime);
    if (token === null || found === null) {
      // A cookie whose session is over is dropped here too, so the page starts clean.
      if (cookieValue(request.headers.cookie, sessionCookieName(request)) !== null) reply.header('Set-Cookie', clearingCookie(request));
      return { ok: true, signed_in: false };
    }
    return signedIn(found.key, token);
  });

  // Anyone may sign in, so the body anyone may send is small: an API key and nothing else (docs/security.md "Bodies").
  app.post('/studio/session', { bodyLimit: SIGN_IN_BODY_LIMIT_BYTES }, async (request, reply) => {
    checkSameOrigin(request, options.trustProxy);
    reply.header('Cache-Control', 'no-store');
    const body = request.body as { api_key?: unknown } | null;
    const apiKey = typeof body?.api_key === 'string' ? body.api_key.trim() : '';
    if (apiKey === '')
      throw badRequest('Paste your API key (it starts with imk_).', {
        reason: 'missing_key',
        details: [{ field: 'api_key', message: 'required' }],
      });
    options.attempts?.check(request.ip);
    const key = KEY_SHAPE.test(apiKey) ? await keys.authenticate(apiKey) : null;
    if (key === null) {
      options.attempts?.failed(request.ip);
      throw new AppError('UNAUTHORIZED', 'Invalid API key: it is unknown or was revoked. Create one with `immoreel keys create`.', {
        reason: 'invalid_key',
      });
    }
    return signedIn(key, await openSession(request, reply, key));
  });

  // Sign-out always works: it ends the session if there is one and always clears the cookie, even
  // when the session is already over (its key revoked, expired). It needs no CSRF token: ending a
  // session gives a forger nothing, and cross-site callers are refused by the origin check.
  app.delete('/studio/session', async (request, reply) => {
    checkSameOrigin(request, options.trustProxy);
    reply.header('Cache-Control', 'no-store');
    const token = sessionToken(request);
    if (token !== null) await sessions.end(token);
    reply.header('Set-Cookie', clearingCookie(request));
    return { ok: true, signed_in: false };
  });

  // A sign-in link for another device, asked by a signed-in page (docs/studio.md "From a phone or another device").
  app.post('/studio/device-link', async (request, reply) => {
    checkSameOrigin(request, options.trustProxy);
    reply.header('Cache-Control', 'no-store');
    const token = sessionToken(request);
    if (token === null || (await sessions.authenticate(token, lifetime)) === null) throw sessionEnded(request);
    checkCsrf(request, token);
    if (login === undefined) {
      throw new AppError('NOT_FOUND', 'Sign-in links are made by `immoreel studio`; on `immoreel serve`, sign in with an API key.', {
        reason: 'no_device_links',
      });
    }
    const port = new URL(`http://${request.host}`).port;
    const hosts = login.deviceHosts.length > 0 ? login.deviceHosts : [request.hostname];
    const fresh = newLoginToken(login);
    const links = hosts.map(
      (host) =>
        `${request.protocol}://${host.includes(':') ? `[${host}]` : host}${port === '' ? '' : `:${port}`}/studio/login?token=${fresh}`,
    );
    return { ok: true, links, lan: login.deviceHosts.length > 0 };
  });

  // The links `immoreel studio` prints: each token is spent on first use, like Jupyter's.
  app.get('/studio/login', async (request, reply) => {
    const token = (request.query as { token?: unknown }).token;
    const used = login === undefined || typeof token !== 'string' ? undefined : [...login.tokens].find((live) => sameText(token, live));
    if (login !== undefined && used !== undefined) {
      login.tokens.delete(used);
      const key = await keys.authenticate(login.apiKey);
      if (key !== null) {
        await openSession(request, reply, key);
        return reply.code(303).header('Location', '/').header('Cache-Control', 'no-store').send();
      }
    }
    return reply.code(303).header('Location', '/?signin=link_used').header('Cache-Control', 'no-store').send();
  });
}
