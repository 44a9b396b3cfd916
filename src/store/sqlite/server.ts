import { migrate, openDatabase, type Db, type Migration } from '../../jobs/db.js';
import { SqliteAssetRecords } from './assets.js';
import { IdempotencyStore } from './idempotency.js';
import { KeyStore } from './keys.js';
import { UsageStore } from './usage.js';
import { WebhookStore } from './webhooks.js';

/**
 * The server's tables live in the same SQLite file as the job store (one data directory, one
 * file to back up), versioned separately under the `server` component.
 */
const MIGRATIONS: Migration[] = [
  (db) => {
    db.exec(`
      CREATE TABLE server_tenants (
        tenant TEXT PRIMARY KEY,
        webhook_secret TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE server_api_keys (
        key_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL REFERENCES server_tenants(tenant),
        key_hash TEXT NOT NULL UNIQUE,
        hint TEXT NOT NULL,
        scopes TEXT NOT NULL,
        plan TEXT NOT NULL,
        monthly_quota INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        last_used_at TEXT
      );
      CREATE TABLE server_usage (
        key_id TEXT NOT NULL,
        period TEXT NOT NULL,
        route TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, period, route)
      );
      CREATE TABLE server_idempotency (
        key_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        route TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status_code INTEGER NOT NULL,
        body TEXT,
        job_id TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, idempotency_key)
      );
      CREATE INDEX server_idempotency_created ON server_idempotency(created_at);
      CREATE TABLE server_assets (
        asset_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        content_type TEXT NOT NULL,
        format TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        size_bytes INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        file TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX server_assets_expires ON server_assets(expires_at);
      CREATE TABLE server_webhooks (
        job_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        url TEXT NOT NULL,
        message_id TEXT NOT NULL,
        state TEXT NOT NULL,
        payload TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX server_webhooks_due ON server_webhooks(state, next_attempt_at);
    `);
  },
  (db) => {
    // The quota unit each render job took, until the job ends (docs/security.md: a job that fails
    // on the caller's input is not charged).
    db.exec(`
      CREATE TABLE server_job_charges (
        job_id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        period TEXT NOT NULL,
        route TEXT NOT NULL
      );
    `);
  },
];

export interface ServerStore {
  db: Db;
  dataDir: string;
  keys: KeyStore;
  usage: UsageStore;
  idempotency: IdempotencyStore;
  assets: SqliteAssetRecords;
  webhooks: WebhookStore;
  close(): void;
}

export interface ServerStoreOptions {
  now?: () => number;
}

export function openServerStore(dataDir: string, options: ServerStoreOptions = {}): ServerStore {
  const now = options.now ?? Date.now;
  const db = openDatabase(dataDir);
  migrate(db, 'server', MIGRATIONS);
  return {
    db,
    dataDir,
    keys: new KeyStore(db, now),
    usage: new UsageStore(db, now),
    idempotency: new IdempotencyStore(db, now),
    assets: new SqliteAssetRecords(db, now),
    webhooks: new WebhookStore(db, now),
    close() {
      if (db.open) db.close();
    },
  };
}

/** How many schema versions the server's tables know (`immoreel db status`). */
export const SERVER_MIGRATION_COUNT = MIGRATIONS.length;
