import type { Db } from './driver.js';
import {
  activeKeyOf,
  API_KEY_PATTERN,
  hashApiKey,
  keyRowToRecord,
  prepareKey,
  unknownKeyError,
  type ApiKeyRecord,
  type CreatedKey,
  type CreateKeyOptions,
  type KeyRow,
} from '../api-keys.js';

/** API keys in the SQLite file (docs/api.md "Keys, scopes, plans"); src/records/api-keys.ts holds what both backends share. */
export class KeyStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  create(options: CreateKeyOptions): CreatedKey {
    const { row, apiKey, newTenantSecret } = prepareKey(options, this.now());
    const insert = this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO server_tenants (tenant, webhook_secret, created_at) VALUES (?, ?, ?) ON CONFLICT(tenant) DO NOTHING')
        .run(row.tenant, newTenantSecret, row.created_at);
      this.db
        .prepare(
          `INSERT INTO server_api_keys (key_id, tenant, key_hash, hint, scopes, plan, monthly_quota, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(row.key_id, row.tenant, row.key_hash, row.hint, row.scopes, row.plan, row.monthly_quota, row.created_at);
    });
    insert.immediate();
    return { record: this.get(row.key_id)!, apiKey, webhookSecret: this.webhookSecret(row.tenant)! };
  }

  get(keyId: string): ApiKeyRecord | null {
    const row = this.db.prepare('SELECT * FROM server_api_keys WHERE key_id = ?').get(keyId) as KeyRow | undefined;
    return row === undefined ? null : keyRowToRecord(row);
  }

  list(): ApiKeyRecord[] {
    const rows = this.db.prepare('SELECT * FROM server_api_keys ORDER BY created_at, key_id').all() as KeyRow[];
    return rows.map(keyRowToRecord);
  }

  listForTenant(tenant: string): ApiKeyRecord[] {
    const rows = this.db.prepare('SELECT * FROM server_api_keys WHERE tenant = ? ORDER BY created_at, key_id').all(tenant) as KeyRow[];
    return rows.map(keyRowToRecord);
  }

  /**
   * Revoked keys fail from the next request on: authentication reads the store every time. The
   * key's Studio sessions end with it (docs/security.md "Studio sessions").
   */
  revoke(keyId: string): ApiKeyRecord {
    const existing = this.get(keyId);
    if (existing === null) {
      throw unknownKeyError(keyId);
    }
    this.db
      .transaction(() => {
        if (existing.revoked_at === null) {
          this.db.prepare('UPDATE server_api_keys SET revoked_at = ? WHERE key_id = ?').run(new Date(this.now()).toISOString(), keyId);
        }
        this.db.prepare('DELETE FROM server_studio_sessions WHERE key_id = ?').run(keyId);
      })
      .immediate();
    return this.get(keyId)!;
  }

  /** The active key for a presented secret, or null (unknown, malformed or revoked). */
  authenticate(presented: string): ApiKeyRecord | null {
    if (!API_KEY_PATTERN.test(presented)) return null;
    const hash = hashApiKey(presented);
    return activeKeyOf(this.db.prepare('SELECT * FROM server_api_keys WHERE key_hash = ?').get(hash) as KeyRow | undefined, hash);
  }

  touch(keyId: string): void {
    this.db.prepare('UPDATE server_api_keys SET last_used_at = ? WHERE key_id = ?').run(new Date(this.now()).toISOString(), keyId);
  }

  webhookSecret(tenant: string): string | null {
    const row = this.db.prepare('SELECT webhook_secret FROM server_tenants WHERE tenant = ?').get(tenant) as
      { webhook_secret: string } | undefined;
    return row?.webhook_secret ?? null;
  }
}
