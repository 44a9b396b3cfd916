import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { randomId } from '../core/random-ids.js';
import type { ApiKeyRecord } from './api-keys.js';

/**
 * Studio sign-in sessions (docs/security.md "Studio sessions"): what the browser's cookie names
 * instead of the API key. The cookie holds a random token (`ims_` + 256 bits, base64url) that is
 * stored only as its SHA-256 hash, like API keys (a high-entropy secret needs no slow hash). A
 * session belongs to one API key and ends at sign-out, when its key is revoked, when it has not
 * been used for the idle lifetime, or at its absolute lifetime, whichever comes first. Its
 * `session_id` is a public name for listing and revoking it (`immoreel keys sessions`), never
 * accepted in a cookie.
 */

export const SESSION_TOKEN_PATTERN = /^ims_[A-Za-z0-9_-]{43}$/;

export interface SessionLifetime {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. */
  maxMs: number;
}

/** Two hours idle, twelve hours in all: one working day, signed in once (docs/studio.md "Sessions"). */
export const DEFAULT_SESSION_LIFETIME: SessionLifetime = { idleMs: 2 * 3600_000, maxMs: 12 * 3600_000 };

/** `last_used_at` (and with it the idle expiry) is written at most this often per session. */
export const SESSION_TOUCH_MS = 60_000;

/** One row of `server_studio_sessions`, the same in both backends. Times are epoch milliseconds. */
export interface SessionRow {
  session_id: string;
  token_hash: string;
  key_id: string;
  tenant: string;
  created_at: number;
  last_used_at: number;
  /** When the session ends if it is not used again: min(last use + idle lifetime, expires_at). */
  idle_expires_at: number;
  /** The absolute end: sign-in + the absolute lifetime. */
  expires_at: number;
}

/** A session as listed (`immoreel keys sessions --json`): no token, no hash. */
export interface StudioSession {
  session_id: string;
  key_id: string;
  tenant: string;
  created_at: string;
  last_used_at: string;
  /** When it ends unless used again (idle), never after its absolute end. */
  expires_at: string;
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function sessionRowToRecord(row: SessionRow): StudioSession {
  return {
    session_id: row.session_id,
    key_id: row.key_id,
    tenant: row.tenant,
    created_at: new Date(Number(row.created_at)).toISOString(),
    last_used_at: new Date(Number(row.last_used_at)).toISOString(),
    expires_at: new Date(Math.min(Number(row.idle_expires_at), Number(row.expires_at))).toISOString(),
  };
}

/** A new session of `key` (pure but for the random bytes); the stores insert the row. */
export function prepareSession(key: ApiKeyRecord, lifetime: SessionLifetime, nowMs: number): { row: SessionRow; token: string } {
  const token = `ims_${randomBytes(32).toString('base64url')}`;
  const expiresAt = nowMs + lifetime.maxMs;
  return {
    token,
    row: {
      session_id: randomId('ses', 16),
      token_hash: hashSessionToken(token),
      key_id: key.key_id,
      tenant: key.tenant,
      created_at: nowMs,
      last_used_at: nowMs,
      idle_expires_at: Math.min(nowMs + lifetime.idleMs, expiresAt),
      expires_at: expiresAt,
    },
  };
}

/**
 * The row a lookup by `hash` found, if it is this token's and still live. The stored hash is
 * compared again in constant time, as for API keys.
 */
export function liveSessionOf(row: SessionRow | undefined, hash: string, nowMs: number): SessionRow | null {
  if (row === undefined) return null;
  const stored = Buffer.from(row.token_hash, 'hex');
  const given = Buffer.from(hash, 'hex');
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
  if (Number(row.idle_expires_at) <= nowMs || Number(row.expires_at) <= nowMs) return null;
  return row;
}

/** The idle expiry after a use at `nowMs`, or null when the row was touched less than a minute ago. */
export function touchedIdleExpiry(row: SessionRow, lifetime: SessionLifetime, nowMs: number): number | null {
  if (nowMs - Number(row.last_used_at) < SESSION_TOUCH_MS) return null;
  return Math.min(nowMs + lifetime.idleMs, Number(row.expires_at));
}

/** `keys revoke-session` of an unknown (or already ended) id, the same words in both backends. */
export function unknownSessionError(sessionId: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `No live Studio session ${JSON.stringify(sessionId)}: run \`immoreel keys sessions\` to see the session ids.`,
  );
}
