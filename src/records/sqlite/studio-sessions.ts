import type { Db } from './driver.js';
import { keyRowToRecord, type ApiKeyRecord, type KeyRow } from '../api-keys.js';
import {
  hashSessionToken,
  liveSessionOf,
  prepareSession,
  SESSION_TOKEN_PATTERN,
  sessionRowToRecord,
  touchedIdleExpiry,
  unknownSessionError,
  type SessionLifetime,
  type SessionRow,
  type StudioSession,
} from '../studio-sessions.js';

/** Studio sessions in the SQLite file; src/records/studio-sessions.ts holds what both backends share. */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  create(key: ApiKeyRecord, lifetime: SessionLifetime): { token: string; session: StudioSession } {
    const { row, token } = prepareSession(key, lifetime, this.now());
    this.db
      .prepare(
        `INSERT INTO server_studio_sessions (session_id, token_hash, key_id, tenant, created_at, last_used_at, idle_expires_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.session_id, row.token_hash, row.key_id, row.tenant, row.created_at, row.last_used_at, row.idle_expires_at, row.expires_at);
    return { token, session: sessionRowToRecord(row) };
  }

  authenticate(token: string, lifetime: SessionLifetime): { session: StudioSession; key: ApiKeyRecord } | null {
    if (!SESSION_TOKEN_PATTERN.test(token)) return null;
    const hash = hashSessionToken(token);
    const now = this.now();
    const found = this.db.prepare('SELECT * FROM server_studio_sessions WHERE token_hash = ?').get(hash) as SessionRow | undefined;
    const row = liveSessionOf(found, hash, now);
    if (row === null) return null;
    const keyRow = this.db.prepare('SELECT * FROM server_api_keys WHERE key_id = ?').get(row.key_id) as KeyRow | undefined;
    // A key revoked by an older immoreel (before sessions ended with their key) still ends them here.
    if (keyRow === undefined || keyRow.revoked_at !== null) return null;
    const idleExpiresAt = touchedIdleExpiry(row, lifetime, now);
    if (idleExpiresAt !== null) {
      this.db
        .prepare('UPDATE server_studio_sessions SET last_used_at = ?, idle_expires_at = ? WHERE session_id = ?')
        .run(now, idleExpiresAt, row.session_id);
      row.last_used_at = now;
      row.idle_expires_at = idleExpiresAt;
    }
    return { session: sessionRowToRecord(row), key: keyRowToRecord(keyRow) };
  }

  end(token: string): boolean {
    if (!SESSION_TOKEN_PATTERN.test(token)) return false;
    return this.db.prepare('DELETE FROM server_studio_sessions WHERE token_hash = ?').run(hashSessionToken(token)).changes > 0;
  }

  list(): StudioSession[] {
    const now = this.now();
    const rows = this.db
      .prepare('SELECT * FROM server_studio_sessions WHERE idle_expires_at > ? AND expires_at > ? ORDER BY created_at, session_id')
      .all(now, now) as SessionRow[];
    return rows.map(sessionRowToRecord);
  }

  revoke(sessionId: string): StudioSession {
    const now = this.now();
    const row = this.db.prepare('DELETE FROM server_studio_sessions WHERE session_id = ? RETURNING *').get(sessionId) as
      SessionRow | undefined;
    if (row === undefined || row.idle_expires_at <= now || row.expires_at <= now) throw unknownSessionError(sessionId);
    return sessionRowToRecord(row);
  }

  purgeExpired(): number {
    const now = this.now();
    return this.db.prepare('DELETE FROM server_studio_sessions WHERE idle_expires_at <= ? OR expires_at <= ?').run(now, now).changes;
  }
}
