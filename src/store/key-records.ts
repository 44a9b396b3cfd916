import { randomBytes } from 'node:crypto';
import { badRequest } from '../core/errors.js';
import { DEFAULT_MONTHLY_QUOTA, type Plan, type Scope } from '../server/config.js';
import { randomId } from '../server/ids.js';
import { API_KEY_PREFIX, hashApiKey, resolveScopes, type ApiKeyRecord, type CreateKeyOptions } from '../server/keys.js';

/**
 * API-key logic that does not depend on the database (the rules of src/server/keys.ts): checking a
 * creation request, generating the key, and turning a row into the record users see. The SQLite
 * KeyStore keeps its own copy until it is rewired onto the RecordStore.
 */

const TENANT_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/i;
export const API_KEY_PATTERN = /^imk_[A-Za-z0-9_-]{43}$/;

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
