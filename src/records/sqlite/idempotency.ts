import type { Db } from './driver.js';
import { fingerprint, IDEMPOTENCY_TTL_MS, reusedError, type StoredAnswer } from '../idempotency.js';

/** Idempotency records in the SQLite file (docs/api.md "Idempotency-Key"); src/records/idempotency.ts holds what both backends share. */

interface Row {
  route: string;
  fingerprint: string;
  status_code: number;
  body: string | null;
  job_id: string | null;
  created_at: number;
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
      // The first request's failure is its own to report; this one only waits for the slot to free.
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
