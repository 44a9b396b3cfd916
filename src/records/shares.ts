import { randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { randomId } from '../core/random-ids.js';

/**
 * Share links (docs/api.md "Share links", docs/studio.md "Share links"): a finished job's video
 * opened by anyone holding the link, without signing in, until it expires or the agent revokes
 * it. The link's token is 192 random bits (base64url); it is kept as written, not hashed, so the
 * agent's list can show each link again: it opens one video, which the agent meant to show to
 * anyone they send it to. `share_id` is the public name used to list and revoke it.
 */

export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;
export const DEFAULT_SHARE_DAYS = 30;
export const MAX_SHARE_DAYS = 365;
const DAY_MS = 24 * 3600_000;

/** One row of `server_shares`, the same in both backends. Times are epoch milliseconds. */
export interface ShareRow {
  share_id: string;
  token: string;
  tenant: string;
  job_id: string;
  /** The output shown (a pack's format), or null for the job's primary. */
  format: string | null;
  created_at: number;
  expires_at: number;
}

/** A share as the API answers it. */
export interface ShareRecord {
  id: string;
  job_id: string;
  format: string | null;
  /** Relative to the server: `/s/<token>`. */
  url: string;
  created_at: string;
  expires_at: string;
}

export function shareRowToRecord(row: ShareRow): ShareRecord {
  return {
    id: row.share_id,
    job_id: row.job_id,
    format: row.format,
    url: `/s/${row.token}`,
    created_at: new Date(Number(row.created_at)).toISOString(),
    expires_at: new Date(Number(row.expires_at)).toISOString(),
  };
}

/** A new share row (pure but for the random bytes); the stores insert it. */
export function prepareShare(input: { tenant: string; jobId: string; format: string | null; days: number }, nowMs: number): ShareRow {
  return {
    share_id: randomId('shr', 16),
    token: randomBytes(24).toString('base64url'),
    tenant: input.tenant,
    job_id: input.jobId,
    format: input.format,
    created_at: nowMs,
    expires_at: nowMs + input.days * DAY_MS,
  };
}

export function unknownShareError(shareId: string): AppError {
  return new AppError('NOT_FOUND', `No share link ${shareId}: it was revoked, has expired, or belongs to another tenant.`, {
    reason: 'unknown_share',
  });
}

/** Share links in the record store (SQLite or PostgreSQL). */
export interface ShareRecords {
  insert(row: ShareRow): Promise<void>;
  /** The live share of `token` (not expired, not revoked), or null. */
  findByToken(token: string): Promise<ShareRow | null>;
  /** The tenant's live shares, newest first; only those of one job when `jobId` is given. */
  list(tenant: string, jobId?: string): Promise<ShareRow[]>;
  /** Deletes the tenant's share; null when there is none (another tenant's included). */
  revoke(tenant: string, shareId: string): Promise<ShareRow | null>;
  purgeExpired(): Promise<number>;
}

/** True when `row` exists and is live at `nowMs`. */
export function liveShare(row: ShareRow | undefined, nowMs: number): row is ShareRow {
  return row !== undefined && Number(row.expires_at) > nowMs;
}
