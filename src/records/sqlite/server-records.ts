import { SQLITE_DIALECT } from '../dialect.js';
import { JOB_CHARGES_TABLE, serverTablesV1, sharesTableV1, studioSessionsTableV1 } from '../tables.js';
import { migrate, openDatabase, type Db, type Migration } from './driver.js';
import { SqliteAssetRecords } from './assets.js';
import { IdempotencyStore } from './idempotency.js';
import { KeyStore } from './api-keys.js';
import { SessionStore } from './studio-sessions.js';
import { SqliteShareRecords } from './shares.js';
import { UsageStore } from './usage.js';
import { WebhookStore } from './webhook-outbox.js';

/**
 * The server's tables live in the same SQLite file as the job store (one data directory, one
 * file to back up), versioned separately under the `server` component.
 */
const MIGRATIONS: Migration[] = [
  (db) => {
    db.exec(serverTablesV1(SQLITE_DIALECT));
  },
  (db) => {
    db.exec(JOB_CHARGES_TABLE);
  },
  (db) => {
    db.exec(studioSessionsTableV1(SQLITE_DIALECT));
  },
  (db) => {
    db.exec(sharesTableV1(SQLITE_DIALECT));
  },
];

export interface ServerStore {
  db: Db;
  dataDir: string;
  keys: KeyStore;
  sessions: SessionStore;
  usage: UsageStore;
  idempotency: IdempotencyStore;
  assets: SqliteAssetRecords;
  shares: SqliteShareRecords;
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
    sessions: new SessionStore(db, now),
    usage: new UsageStore(db, now),
    idempotency: new IdempotencyStore(db, now),
    assets: new SqliteAssetRecords(db, now),
    shares: new SqliteShareRecords(db, now),
    webhooks: new WebhookStore(db, now),
    close() {
      if (db.open) db.close();
    },
  };
}

/** How many schema versions the server's tables know (`immoreel db status`). */
export const SERVER_MIGRATION_COUNT = MIGRATIONS.length;
