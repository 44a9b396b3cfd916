import type { Client } from './pool.js';

/** One schema change, applied once, in order, in its own transaction. Append; never edit one that shipped. */
export type PgMigration = (client: Client) => Promise<void>;

/**
 * The PostgreSQL schema: the same tables and columns as the SQLite one (src/jobs/store.ts,
 * src/store/sqlite/server.ts), so both backends hold the same records. Timestamps the SQLite schema keeps
 * as ISO text stay text (records come out byte-identical); millisecond times are BIGINT.
 */
const JOBS: PgMigration[] = [
  async (client) => {
    await client.query(`
      CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
        stage TEXT,
        progress DOUBLE PRECISION NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        template TEXT NOT NULL,
        format TEXT NOT NULL,
        language TEXT NOT NULL,
        request_json TEXT NOT NULL,
        input_hash TEXT NOT NULL,
        allow_local_files INTEGER NOT NULL DEFAULT 0,
        link_base TEXT,
        listing_json TEXT,
        result_json TEXT,
        error_code TEXT,
        error_message TEXT,
        warnings_json TEXT NOT NULL DEFAULT '[]',
        metadata_json TEXT,
        owner TEXT,
        owner_host TEXT,
        owner_pid INTEGER,
        lease_expires_at BIGINT,
        expired_at TEXT
      );
      CREATE INDEX jobs_by_tenant ON jobs (tenant, job_id);
      CREATE INDEX jobs_by_state ON jobs (state, job_id);
      CREATE INDEX jobs_by_input_hash ON jobs (input_hash);
    `);
  },
];

const SERVER: PgMigration[] = [
  async (client) => {
    await client.query(`
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
        created_at BIGINT NOT NULL,
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
        size_bytes BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        file TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
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
        next_attempt_at BIGINT,
        last_status INTEGER,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX server_webhooks_due ON server_webhooks(state, next_attempt_at);
      -- Sliding-window rate limits shared by all API nodes: one row per admitted request.
      CREATE TABLE server_rate_hits (
        policy TEXT NOT NULL,
        partition TEXT NOT NULL,
        at_ms BIGINT NOT NULL
      );
      CREATE INDEX server_rate_hits_window ON server_rate_hits(policy, partition, at_ms);
    `);
  },
  // Rate limits become token buckets (docs/api.md "Rate limits"): one row per (policy, key) with
  // the tokens left and when they were counted. The sliding-window log goes: a bucket starts full.
  async (client) => {
    await client.query(`
      CREATE TABLE server_rate_buckets (
        policy TEXT NOT NULL,
        partition TEXT NOT NULL,
        tokens DOUBLE PRECISION NOT NULL,
        -- The JS millisecond clock value the tokens were counted at, kept as the in-memory limiter keeps it.
        counted_at DOUBLE PRECISION NOT NULL,
        -- Whether the request that last wrote the row got a token (RETURNING sees only the new row).
        last_taken BOOLEAN NOT NULL,
        PRIMARY KEY (policy, partition)
      );
      DROP TABLE server_rate_hits;
    `);
  },
  // The quota unit each render job took, until the job ends (docs/security.md: a job that fails
  // on the caller's input is not charged), as in the SQLite schema.
  async (client) => {
    await client.query(`
      CREATE TABLE server_job_charges (
        job_id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        period TEXT NOT NULL,
        route TEXT NOT NULL
      );
    `);
  },
];

export const SCHEMA: Record<string, PgMigration[]> = { jobs: JOBS, server: SERVER };
