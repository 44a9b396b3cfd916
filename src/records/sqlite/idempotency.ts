import type { Db } from './driver.js';
import {
  fingerprint,
  IDEMPOTENCY_TTL_MS,
  storedAnswerFor,
  type IdempotentRequest,
  type StoredAnswer,
  type StoredAnswerRow,
} from '../idempotency.js';
import type { Charge } from '../quota.js';
import { takeUnits } from './usage.js';

/** Idempotency records in the SQLite file (docs/api.md "Idempotency-Key"); src/records/idempotency.ts holds what both backends share. */

/**
 * The live answer stored for (API key, Idempotency-Key) for a request with `route` and fingerprint
 * `print`, or null (an expired one is deleted); throws `reusedError` for another route or body.
 */
export function liveAnswer(db: Db, request: IdempotentRequest, now: number): StoredAnswer | null {
  const row = db
    .prepare(
      'SELECT route, fingerprint, status_code, body, job_id, created_at FROM server_idempotency WHERE key_id = ? AND idempotency_key = ?',
    )
    .get(request.keyId, request.key) as StoredAnswerRow | undefined;
  if (row === undefined) return null;
  const answer = storedAnswerFor(row, request, now);
  if (answer !== 'expired') return answer;
  db.prepare('DELETE FROM server_idempotency WHERE key_id = ? AND idempotency_key = ?').run(request.keyId, request.key);
  return null;
}

/** Stores an answer; the primary key (API key, Idempotency-Key) refuses a second one. */
export function storeAnswer(db: Db, request: IdempotentRequest, store: StoredAnswer, now: number): void {
  db.prepare(
    `INSERT INTO server_idempotency (key_id, idempotency_key, route, fingerprint, status_code, body, job_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(request.keyId, request.key, request.route, request.fingerprint, store.statusCode, store.body, store.jobId, now);
}

export class IdempotencyStore {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when a live answer is stored for this key: a retry of it will be a replay, never charged. */
  hasStored(keyId: string, idempotencyKey: string): boolean {
    const row = this.db
      .prepare('SELECT created_at FROM server_idempotency WHERE key_id = ? AND idempotency_key = ?')
      .get(keyId, idempotencyKey) as { created_at: number } | undefined;
    return row !== undefined && row.created_at > this.now() - IDEMPOTENCY_TTL_MS;
  }

  /** The live answer of a request (null when none); throws `reusedError` for another route or body. */
  find(keyId: string, idempotencyKey: string, route: string, body: unknown): StoredAnswer | null {
    return liveAnswer(this.db, { keyId, key: idempotencyKey, route, fingerprint: fingerprint(route, body) }, this.now());
  }

  /**
   * Runs `execute` once per (API key, Idempotency-Key): returns `{ replayed: false, value }` the first
   * time, `{ replayed: true, stored }` on a matching retry, throws on a body mismatch. The answer and
   * the request's `charge` are written in one transaction, after `execute`: a request that fails, or
   * whose write fails, is neither stored nor charged.
   */
  async run<T>(
    keyId: string,
    idempotencyKey: string,
    route: string,
    body: unknown,
    execute: () => Promise<{ value: T; store: StoredAnswer }>,
    charge: Charge | null = null,
  ): Promise<{ replayed: false; value: T } | { replayed: true; stored: StoredAnswer }> {
    const request: IdempotentRequest = { keyId, key: idempotencyKey, route, fingerprint: fingerprint(route, body) };
    const slot = `${keyId}\u0000${idempotencyKey}`;
    // A concurrent duplicate waits for the first request; its outcome is then stored (or not).
    for (let pending = this.inFlight.get(slot); pending !== undefined; pending = this.inFlight.get(slot)) {
      // The first request's failure is its own to report (to its caller); this one only waits for the slot to free.
      await Promise.allSettled([pending]);
    }
    const existing = liveAnswer(this.db, request, this.now());
    if (existing !== null) return { replayed: true, stored: existing };
    const work = execute();
    this.inFlight.set(slot, work);
    try {
      const { value, store } = await work;
      this.db
        .transaction(() => {
          if (charge !== null) takeUnits(this.db, charge);
          storeAnswer(this.db, request, store, this.now());
        })
        .immediate();
      return { replayed: false, value };
    } finally {
      this.inFlight.delete(slot);
    }
  }

  purgeExpired(): number {
    return this.db.prepare('DELETE FROM server_idempotency WHERE created_at <= ?').run(this.now() - IDEMPOTENCY_TTL_MS).changes;
  }
}
