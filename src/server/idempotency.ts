import { badRequest } from '../core/errors.js';
import { requestFingerprint } from '../core/hash.js';
import type { Db } from '../jobs/db.js';

/**
 * `Idempotency-Key` on POST /analyze and POST /render-video (docs/api.md). Keys are scoped to the API key that sent them and live 24 h. The first successful answer
 * is stored with a fingerprint of the route and body; a retry with the same key and body gets it
 * back (for a render: the same job, in its current state), the same key with another body is a
 * 400 `idempotency_key_reused`. Failed requests are not stored, so a retry after a 4xx/5xx runs
 * again. A retry that arrives while the first request is still running waits for it.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface StoredAnswer {
  statusCode: number;
  /** The JSON body sent the first time (analyze); null for renders, which replay the live job. */
  body: string | null;
  jobId: string | null;
}

interface Row {
  route: string;
  fingerprint: string;
  status_code: number;
  body: string | null;
  job_id: string | null;
  created_at: number;
}

/** `body` may be a `BodyFingerprint` made where a large body was parsed (docs/security.md). */
export function fingerprint(route: string, body: unknown): string {
  return requestFingerprint(route, body);
}

function reusedError(): Error {
  return badRequest('This Idempotency-Key was already used with a different request body. Use a new key for a new request.', {
    reason: 'idempotency_key_reused',
    details: [{ field: 'Idempotency-Key', message: 'already used with another body' }],
  });
}

export class IdempotencyStore {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  private find(keyId: string, idempotencyKey: string): Row | null {
    const row = this.db
      .prepare(
        'SELECT route, fingerprint, status_code, body, job_id, created_at FROM server_idempotency WHERE key_id = ? AND idempotency_key = ?',
      )
      .get(keyId, idempotencyKey) as Row | undefined;
    if (row === undefined) return null;
    if (row.created_at <= this.now() - IDEMPOTENCY_TTL_MS) {
      this.db.prepare('DELETE FROM server_idempotency WHERE key_id = ? AND idempotency_key = ?').run(keyId, idempotencyKey);
      return null;
    }
    return row;
  }

  /** True when a live answer is stored for this key: a retry of it will be a replay, never charged. */
  hasStored(keyId: string, idempotencyKey: string): boolean {
    return this.find(keyId, idempotencyKey) !== null;
  }

  /**
   * Runs `execute` once per (API key, Idempotency-Key): returns `{ replayed: false, value }` the first
   * time, `{ replayed: true, stored }` on a matching retry, throws on a body mismatch.
   */
  async run<T>(
    keyId: string,
    idempotencyKey: string,
    route: string,
    body: unknown,
    execute: () => Promise<{ value: T; store: StoredAnswer }>,
  ): Promise<{ replayed: false; value: T } | { replayed: true; stored: StoredAnswer }> {
    const print = fingerprint(route, body);
    const slot = `${keyId}\u0000${idempotencyKey}`;
    // A concurrent duplicate waits for the first request; its outcome is then stored (or not).
    for (let pending = this.inFlight.get(slot); pending !== undefined; pending = this.inFlight.get(slot)) {
      await pending.catch(() => undefined);
    }
    const existing = this.find(keyId, idempotencyKey);
    if (existing !== null) {
      if (existing.fingerprint !== print || existing.route !== route) throw reusedError();
      return { replayed: true, stored: { statusCode: existing.status_code, body: existing.body, jobId: existing.job_id } };
    }
    const work = execute();
    this.inFlight.set(slot, work);
    try {
      const { value, store } = await work;
      this.db
        .prepare(
          `INSERT INTO server_idempotency (key_id, idempotency_key, route, fingerprint, status_code, body, job_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(keyId, idempotencyKey, route, print, store.statusCode, store.body, store.jobId, this.now());
      return { replayed: false, value };
    } finally {
      this.inFlight.delete(slot);
    }
  }

  purgeExpired(): number {
    return this.db.prepare('DELETE FROM server_idempotency WHERE created_at <= ?').run(this.now() - IDEMPOTENCY_TTL_MS).changes;
  }
}
