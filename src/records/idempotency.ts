import { badRequest } from '../core/errors.js';
import { requestFingerprint } from '../core/hash.js';

/**
 * `Idempotency-Key` on POST /analyze and POST /render-video (docs/api.md). Keys are scoped to the API key that sent them and live 24 h. The first successful answer
 * is stored with a fingerprint of the route and body; a retry with the same key and body gets it
 * back (for a render: the same job, in its current state), the same key with another body is a
 * 400 `idempotency_key_reused`. Failed requests are not stored, so a retry after a 4xx/5xx runs
 * again. A retry that arrives while the first request is still running waits for it.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredAnswer {
  statusCode: number;
  /** The JSON body sent the first time (analyze); null for renders, which replay the live job. */
  body: string | null;
  jobId: string | null;
}

/** `body` may be a `BodyFingerprint` made where a large body was parsed (docs/security.md). */
export function fingerprint(route: string, body: unknown): string {
  return requestFingerprint(route, body);
}

export function reusedError(): Error {
  return badRequest('This Idempotency-Key was already used with a different request body. Use a new key for a new request.', {
    reason: 'idempotency_key_reused',
    details: [{ field: 'Idempotency-Key', message: 'already used with another body' }],
  });
}
