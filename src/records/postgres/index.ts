import { join } from 'node:path';
import type { RecordStore } from '../types.js';
import { PostgresJobRecords } from './jobs.js';
import { migrate } from './migrate.js';
import { checkConnection, createPool, type Pool, type PoolOptions } from './connection.js';
import {
  PostgresAssetRecords,
  PostgresIdempotencyRecords,
  PostgresKeyRecords,
  PostgresRateLimitRecords,
  PostgresSessionRecords,
  PostgresUsageRecords,
  PostgresWebhookRecords,
} from './server-records.js';
import { PostgresShareRecords } from './shares.js';

export interface PostgresRecordStore extends RecordStore {
  readonly pool: Pool;
}

export interface OpenPostgresOptions extends PoolOptions {
  /** Where local-mode job links point (the data directory's `jobs/`). */
  dataDir: string;
  now?: () => number;
  /** Apply pending migrations at open (default true; `immoreel db migrate` runs them alone). */
  migrate?: boolean;
}

/**
 * Connects, checks the connection (a clear error and exit code when the server is unreachable,
 * the credentials wrong or the database missing), migrates under the advisory lock, and returns
 * the record store.
 */
export async function openPostgresRecordStore(url: string, options: OpenPostgresOptions): Promise<PostgresRecordStore> {
  const now = options.now ?? Date.now;
  const pool = createPool(url, options);
  try {
    await checkConnection(pool, url);
    if (options.migrate !== false) await migrate(pool);
  } catch (error) {
    // Ignored: the connection or migration error is the one to report; ending the pool is clean-up.
    await pool.end().catch(() => undefined);
    throw error;
  }
  const jobs = new PostgresJobRecords(pool, join(options.dataDir, 'jobs'), url, now);
  return {
    kind: 'postgres',
    pool,
    jobs,
    keys: new PostgresKeyRecords(pool, now),
    sessions: new PostgresSessionRecords(pool, now),
    usage: new PostgresUsageRecords(pool, now),
    idempotency: new PostgresIdempotencyRecords(pool, now),
    assets: new PostgresAssetRecords(pool, now),
    shares: new PostgresShareRecords(pool, now),
    webhooks: new PostgresWebhookRecords(pool, now),
    rateLimits: new PostgresRateLimitRecords(pool, now),
    async ping() {
      await pool.query('SELECT 1');
    },
    async pingQueue() {
      // pg-boss keeps its queues in its own schema; a missing or unreadable one means nothing is dispatched.
      await pool.query('SELECT version FROM pgboss.version');
    },
    async close() {
      await jobs.closeQueue();
      await pool.end();
    },
  };
}
