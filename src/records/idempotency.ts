import { badRequest } from '../core/errors.js';
import { requestFingerprint } from '../core/hash.js';

/**
 * `Idempotency-Key` on POST /analyze and POST /render-video (docs/api.md). Keys are scoped to the API key that sent them and live 24 h. The first successful answer
 * is stored with a fingerprint of the route and body; a retry with the same key and body gets it
 * back (for a render: the same job, in its current state), the same key with another body is a
 * 400 `idempotency_key_reused`. Failed requests are not stored, so a retry after a 4xx/5xx runs
 * again. A retry that arrives while the first request is still running waits for it. The answer is
 * written in the transaction that writes what the request bought (the job, the quota charge), and
 * (API key, Idempotency-Key) is the table's primary key: one answer, hence one job, per key.
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

/** A stored answer as both backends read it. */
export interface StoredAnswerRow {
  route: string;
  fingerprint: string;
  status_code: number;
  body: string | null;
  job_id: string | null;
  created_at: number;
}

/** One request with an `Idempotency-Key`: whose key, which key, and the fingerprint of its route and body. */
export interface IdempotentRequest {
  keyId: string;
  key: string;
  route: string;
  fingerprint: string;
}

/**
 * What a stored row means for `request` at `now`: `expired` (to be deleted and run again), or the
 * answer to replay; a different route or body is the 400 of `reusedError`.
 */
export function storedAnswerFor(
  row: StoredAnswerRow,
  request: Pick<IdempotentRequest, 'route' | 'fingerprint'>,
  now: number,
): StoredAnswer | 'expired' {
  if (row.created_at <= now - IDEMPOTENCY_TTL_MS) return 'expired';
  if (row.fingerprint !== request.fingerprint || row.route !== request.route) throw reusedError();
  return { statusCode: row.status_code, body: row.body, jobId: row.job_id };
}
