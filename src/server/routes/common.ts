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

const error = (description: string): ResponseSpec => ({ description, schema: ErrorEnvelopeSchema });

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const AUTH_ERRORS: Record<string, ResponseSpec> = {
  '400': error('BAD_REQUEST: invalid JSON, wrong Content-Type, unknown, missing or invalid fields (`details` names each).'),
  '401': error('UNAUTHORIZED: API key missing, malformed or invalid (`WWW-Authenticate: Bearer`).'),
  '403': error('INSUFFICIENT_SCOPE (preview key on billing; another tenant\'s job) or QUOTA_EXCEEDED (`reason`: monthly_quota or route_not_permitted).'),
  '429': error('RATE_LIMIT_EXCEEDED: per-key rate over its limit; `Retry-After` says when to retry.'),
  '500': error('INTERNAL_SERVER_ERROR: unexpected failure; generic message, quote the request_id.'),
};

export const RATE_HEADERS: ResponseSpec['headers'] = {
  'RateLimit-Policy': { description: 'IETF draft: `"<policy>";q=<quota>;w=<window seconds>`.', schema: { type: 'string' } },
  RateLimit: { description: 'IETF draft: `"<policy>";r=<remaining>;t=<seconds until a slot frees>`.', schema: { type: 'string' } },
};
