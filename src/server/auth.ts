import type { AuthAttempts } from './auth-throttle.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { policyLimit, type ServerLimits } from './api-limits.js';
import { withExtras, withHeaders } from './errors.js';
import type { ApiKeyRecord, Charge, RecordStore } from '../records/types.js';
import { periodOf, periodResetAt } from '../records/quota.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import type { RouteAccess } from './route-spec.js';

/**
 * Who is calling and may they (docs/api.md), in the order a client can act on:
 * 401 (no or bad key) → 403 (scope) → 429 (rate) → 403 (monthly quota). Runs in `onRequest`,
 * before the body is read, so an unauthenticated client cannot make the server parse anything.
 */

export interface AuthContext {
  key: ApiKeyRecord;
  /**
   * What a billable request is to be charged, once it is sure there was quota left when it was
   * admitted: written in the transaction that records what the request bought (the job, the stored
   * answer, docs/operations.md "Exactly once"), never before. Null for free routes and replays.
   */
  charge: Charge | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

const REALM = 'Bearer realm="immoreel"';

function unauthorized(message: string, reason: string, header: string): AppError {
  return withHeaders(new AppError('UNAUTHORIZED', message, { reason }), { 'WWW-Authenticate': header });
}

/** The API key of an `Authorization: Bearer <key>` header (RFC 6750 §2.1), or an error. */
export function bearerToken(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw unauthorized('Missing API key: send the header `Authorization: Bearer <API_KEY>`.', 'missing_key', REALM);
  }
  const value = Array.isArray(header) ? header[0]! : header;
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(value);
  if (match === null) {
    throw unauthorized(
      'Malformed Authorization header: the form is `Authorization: Bearer <API_KEY>`.',
      'malformed_header',
      `${REALM}, error="invalid_request"`,
    );
  }
  return match[1]!;
}

export interface AuthorizerOptions {
  /** Keys, quotas, rate-limit buckets and stored idempotent answers (a replay takes no quota, docs/security.md). */
  records: Pick<RecordStore, 'keys' | 'usage' | 'rateLimits' | 'idempotency'>;
  limits: ServerLimits;
  now: () => number;
  /** Unknown keys per address (./auth-throttle.ts): past the limit, a 429 before the key is looked up. */
  attempts?: AuthAttempts;
}

export function createAuthorizer(options: AuthorizerOptions) {
  const lastTouched = new Map<string, number>();
  const { keys, usage, rateLimits, idempotency } = options.records;

  return async function authorize(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const access: RouteAccess | undefined = request.routeOptions.config?.access;
    if (access === undefined || access.scope === null) return;

    // A Studio session's key (./studio/session.ts), already checked live; otherwise the bearer key.
    if (request.studioKey === null) options.attempts?.check(request.ip);
    const key = request.studioKey ?? (await keys.authenticate(bearerToken(request.headers.authorization)));
    if (key === null) {
      options.attempts?.failed(request.ip);
      throw unauthorized(
        'Invalid API key: it is unknown or was revoked. Create one with `immoreel keys create`.',
        'invalid_key',
        `${REALM}, error="invalid_token"`,
      );
    }
    request.auth = { key, charge: null };
    const now = options.now();
    if ((lastTouched.get(key.key_id) ?? 0) < now - 60_000) {
      lastTouched.set(key.key_id, now);
      // Not awaited: a lost `last_used_at` update must not fail or slow the request.
      keys.touch(key.key_id).catch((error: unknown) => request.log.warn({ err: error }, 'last_used_at update failed'));
    }

    if (!key.scopes.includes(access.scope)) {
      if (access.scope === 'billing:read' && key.plan === 'preview') {
        throw withHeaders(
          new AppError('INSUFFICIENT_SCOPE', 'Preview keys cannot read billing: use a standard key holding billing:read.', {
            reason: 'billing_scope',
          }),
          { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${access.scope}"` },
        );
      }
      // QUOTA_EXCEEDED as the interface contract says (docs/api.md "Order of checks and the error
      // envelope"); the standard's header says which scope is missing.
      throw withHeaders(
        new AppError('QUOTA_EXCEEDED', `This API key does not permit this route: it needs the ${access.scope} scope.`, {
          reason: 'route_not_permitted',
          details: [{ field: 'scope', message: `requires ${access.scope}` }],
        }),
        { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${access.scope}"` },
      );
    }

    if (access.policy !== null) {
      const policy = { name: access.policy, limit: policyLimit(options.limits, access.policy), windowMs: options.limits.windowMs };
      // Per key across all API nodes when the records are shared (docs/scaling.md).
      const decision = await rateLimits.take(policy, key.key_id);
      const headers = rateLimitHeaders(policy, decision);
      for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      if (!decision.allowed) {
        const perWindow = options.limits.windowMs === 60_000 ? 'per minute' : `per ${options.limits.windowMs / 1000} s`;
        throw withHeaders(
          new AppError(
            'RATE_LIMIT_EXCEEDED',
            `Rate limit of ${policy.limit} ${access.policy.replace('_', ' ')} requests ${perWindow} exceeded: retry in ${decision.retryAfterS} s.`,
            {
              reason: `${access.policy}_rate`,
              retryAfterS: decision.retryAfterS,
            },
          ),
          headers,
        );
      }
    }

    // A retry of a request that already succeeded replays its stored answer: it is neither charged
    // nor refused for quota, so the lookup comes before the quota. The quota is only looked at
    // here, so that a client with none left is refused before its body is read; the charge is
    // written with what the request bought (`charge`), where it is checked again.
    const idempotencyKey = request.headers['idempotency-key'];
    const replay = typeof idempotencyKey === 'string' && idempotencyKey !== '' && (await idempotency.hasStored(key.key_id, idempotencyKey));
    if (access.billable !== null && !replay) {
      const state = await usage.state(key.key_id, key.monthly_quota);
      if (state.remaining <= 0) throw quotaExceeded(key.monthly_quota, state.period, state.resets_at);
      request.auth.charge = { keyId: key.key_id, period: periodOf(now), route: access.billable, units: 1, limit: key.monthly_quota };
    }
  };
}

/** The 403 of a spent monthly quota (docs/api.md "Monthly quota"), with `resets_at`. */
export function quotaExceeded(limit: number, period: string, resetsAt: string): AppError {
  return withExtras(
    new AppError('QUOTA_EXCEEDED', `Monthly quota of ${limit} requests used up for ${period}; it resets at ${resetsAt}.`, {
      reason: 'monthly_quota',
    }),
    { resets_at: resetsAt },
  );
}

/**
 * Runs the write that charges a request; a quota found spent there (another request took the last
 * units meanwhile) is the same 403 as at the door, with `resets_at`.
 */
export async function charging<T>(charge: Charge | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (charge !== null && error instanceof AppError && error.code === 'QUOTA_EXCEEDED' && error.reason === 'monthly_quota') {
      throw quotaExceeded(charge.limit, charge.period, periodResetAt(Date.parse(`${charge.period}-01T00:00:00Z`)));
    }
    throw error;
  }
}
