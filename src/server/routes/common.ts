import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { AuthContext } from '../auth.js';
import type { ResponseSpec } from '../route-spec.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';

/** The caller of an authenticated route (the auth hook has run; absent only by a wiring bug). */
export function caller(request: FastifyRequest): AuthContext {
  if (request.auth === null) throw new AppError('INTERNAL_SERVER_ERROR', 'Route reached without authentication.');
  return request.auth;
}

export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Aborted when the client goes away before the answer is sent: the engine stops working for nobody. */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}

const error = (description: string, headers?: ResponseSpec['headers']): ResponseSpec => ({
  description,
  schema: ErrorEnvelopeSchema,
  ...(headers ? { headers } : {}),
});

const text = (description: string) => ({ description, schema: { type: 'string' } });
const seconds = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** The rate-limit headers of every limited answer (docs/api.md "Rate limits"). */
export const RATE_HEADERS: NonNullable<ResponseSpec['headers']> = {
  'RateLimit-Policy': text('IETF draft: `"<policy>";q=<requests>;w=<window seconds>`.'),
  RateLimit: text('IETF draft: `"<policy>";r=<remaining>;t=<seconds until the budget is full again>`.'),
  'RateLimit-Limit': seconds('Requests per window (the bucket size).'),
  'RateLimit-Remaining': seconds('Requests that may be sent at once now.'),
  'RateLimit-Reset': seconds('Seconds until the budget is full again.'),
};

const AUTHENTICATE = {
  'WWW-Authenticate': text('`Bearer realm="immoreel"`, with `error="invalid_token"` or `error="insufficient_scope"` when it applies.'),
};

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const AUTH_ERRORS: Record<string, ResponseSpec> = {
  '400': error('BAD_REQUEST: invalid JSON, wrong Content-Type, unknown, missing or invalid fields (`details` names each).'),
  '401': error('UNAUTHORIZED: API key missing, malformed or invalid (`reason`: missing_key, malformed_header, invalid_key).', AUTHENTICATE),
  '403': error(
    'INSUFFICIENT_SCOPE (`reason`: billing_scope, other_tenant) or QUOTA_EXCEEDED (`reason`: monthly_quota, with `error.resets_at`; route_not_permitted).',
    AUTHENTICATE,
  ),
  '429': error(
    'RATE_LIMIT_EXCEEDED: per-key rate or job limits (`reason`: analyze_rate, render_rate, job_reads_rate, account_rate, concurrent_renders, queued_jobs).',
    {
      'Retry-After': seconds('Seconds to wait before a retry can succeed.'),
      ...RATE_HEADERS,
    },
  ),
  '500': error('INTERNAL_SERVER_ERROR: unexpected failure; generic message, quote the request_id.'),
};

export const REPLAYED_HEADER = {
  'Idempotent-Replayed': text('`true` when this answer replays the first one for the same `Idempotency-Key`.'),
};

/** What a route without authentication can still answer: a URL the server cannot parse. */
export const MALFORMED_URL: Record<string, ResponseSpec> = { '400': error('BAD_REQUEST: malformed request URL (`reason`: bad_url).') };
