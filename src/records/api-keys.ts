import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, badRequest } from '../core/errors.js';
import { DEFAULT_MONTHLY_QUOTA, PREVIEW_SCOPES, SCOPES, STANDARD_SCOPES, type Plan, type Scope } from './plans.js';
import { randomId } from '../core/random-ids.js';

/**
 * API keys (docs/api.md): random, shown once at creation, stored only as a SHA-256 hash.
 *
 * A key is `imk_` + 43 base64url characters (256 random bits). With that much entropy a plain
 * SHA-256 is the right hash (a slow password hash protects low-entropy secrets; it would only
 * slow every request). Lookup goes by hash; the stored hash is then compared again with
 * `timingSafeEqual`, so no code path compares secret material with an early-exit comparison.
 */

export const API_KEY_PREFIX = 'imk_';
export const API_KEY_PATTERN = /^imk_[A-Za-z0-9_-]{43}$/;
const TENANT_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

export interface ApiKeyRecord {
  key_id: string;
  tenant: string;
  /** The key masked for display: prefix, four characters, an ellipsis, the last four. */
  masked_key: string;
  scopes: Scope[];
  plan: Plan;
  monthly_quota: number;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface CreatedKey {
  record: ApiKeyRecord;
  /** The only time the key exists in clear: print it and forget it. */
  apiKey: string;
  /** The tenant's Standard Webhooks secret (`whsec_` + base64), the same for all its keys. */
  webhookSecret: string;
}

export interface CreateKeyOptions {
  tenant: string;
  preview?: boolean;
  scopes?: string[];
  monthlyQuota?: number;
}

/** One row of `server_api_keys`, the same in both backends (src/records/sqlite, src/records/postgres). */
export interface KeyRow {
  key_id: string;
  tenant: string;
  key_hash: string;
  hint: string;
  scopes: string;
  plan: string;
  monthly_quota: number;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function keyRowToRecord(row: KeyRow): ApiKeyRecord {
  return {
    key_id: row.key_id,
    tenant: row.tenant,
    masked_key: row.hint,
    scopes: JSON.parse(row.scopes) as Scope[],
    plan: row.plan as Plan,
    monthly_quota: row.monthly_quota,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

/** Checks `--scopes` against the plan: preview keys hold exactly the two preview scopes. */
export function resolveScopes(preview: boolean, requested: string[] | undefined): Scope[] {
  const wanted = requested?.map((s) => s.trim()).filter((s) => s !== '');
  if (wanted === undefined || wanted.length === 0) return [...(preview ? PREVIEW_SCOPES : STANDARD_SCOPES)];
  const unknown = wanted.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw badRequest(`Unknown scope ${unknown.join(', ')}: use ${SCOPES.join(', ')}.`, {
      details: [{ field: 'scopes', message: `must be among ${SCOPES.join(', ')}` }],
    });
  }
  const unique = [...new Set(wanted)] as Scope[];
  if (preview && (unique.length !== PREVIEW_SCOPES.length || !PREVIEW_SCOPES.every((s) => unique.includes(s)))) {
    throw badRequest(`Preview keys hold exactly ${PREVIEW_SCOPES.join(' and ')}: drop --scopes, or drop --preview for a standard key.`, {
      details: [{ field: 'scopes', message: `preview keys hold exactly ${PREVIEW_SCOPES.join(', ')}` }],
    });
  }
  return SCOPES.filter((s) => unique.includes(s));
}

/** Checks a creation request and makes the key (pure but for the random bytes); the stores insert the row. */
export interface PreparedKey {
  row: Omit<KeyRow, 'revoked_at' | 'last_used_at'>;
  apiKey: string;
  /** Used only if the tenant has no secret yet (its first key). */
  newTenantSecret: string;
}

export function prepareKey(options: CreateKeyOptions, nowMs: number): PreparedKey {
  const tenant = options.tenant.trim();
  if (!TENANT_PATTERN.test(tenant)) {
    throw badRequest(`Invalid tenant ${JSON.stringify(options.tenant)}: use 1–63 letters, digits, dots, dashes or underscores.`, {
      details: [{ field: 'tenant', message: 'must be 1–63 letters, digits, ".", "-" or "_", starting with a letter or digit' }],
    });
  }
  const preview = options.preview === true;
  const plan: Plan = preview ? 'preview' : 'standard';
  const scopes = resolveScopes(preview, options.scopes);
  const quota = options.monthlyQuota ?? DEFAULT_MONTHLY_QUOTA[plan];
  if (!Number.isSafeInteger(quota) || quota < 1) {
    throw badRequest(`Invalid monthly quota ${String(options.monthlyQuota)}: give a whole number of requests, at least 1.`, {
      details: [{ field: 'monthly_quota', message: 'must be a whole number ≥ 1' }],
    });
  }
  const secret = randomBytes(32).toString('base64url');
  const apiKey = `${API_KEY_PREFIX}${secret}`;
  return {
    row: {
      key_id: randomId('key', 16),
      tenant,
      key_hash: hashApiKey(apiKey),
      hint: `${API_KEY_PREFIX}${secret.slice(0, 4)}…${secret.slice(-4)}`,
      scopes: JSON.stringify(scopes),
      plan,
      monthly_quota: quota,
      created_at: new Date(nowMs).toISOString(),
    },
    apiKey,
    newTenantSecret: `whsec_${randomBytes(32).toString('base64')}`,
  };
}

/** `keys revoke` of an unknown id, the same words in both backends. */
export function unknownKeyError(keyId: string): AppError {
  return new AppError('NOT_FOUND', `No API key ${JSON.stringify(keyId)}: run \`immoreel keys list\` to see the key ids.`);
}

/**
 * The active key a lookup by `hash` found, or null (none, or revoked). The stored hash is compared
 * again in constant time, so no path compares secret material with an early exit.
 */
export function activeKeyOf(row: KeyRow | undefined, hash: string): ApiKeyRecord | null {
  if (row === undefined) return null;
  if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  if (row.revoked_at !== null) return null;
  return keyRowToRecord(row);
}
