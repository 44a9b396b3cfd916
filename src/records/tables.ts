import type { Dialect } from './dialect.js';

/**
 * The tables both backends create, each written once (docs/scaling.md "Record store"): the SQLite
 * migrations (./sqlite) and the PostgreSQL ones (./postgres/schema.ts) run these texts in the
 * same order, so both hold the same records. Timestamps kept as ISO text stay text in both;
 * millisecond times and sizes are 64-bit integers. These are the texts of migrations that have
 * shipped: a change of schema is a new migration, never an edit here.
 */

/** Migration 1 of the `jobs` component: the job table. */
export function jobsTableV1(d: Dialect): string {
  return `
      CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
        stage TEXT,
        progress ${d.float} NOT NULL DEFAULT 0,
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
        lease_expires_at ${d.int64},
        expired_at TEXT
      );
      CREATE INDEX jobs_by_tenant ON jobs (tenant, job_id);
      CREATE INDEX jobs_by_state ON jobs (state, job_id);
      CREATE INDEX jobs_by_input_hash ON jobs (input_hash);
    `;
}

/**
 * Migration 2 of the `jobs` component: video packs (docs/jobs.md "Outputs"). `formats_json` is the
 * job's formats in request order, `outputs_json` what each output's render verified; rows written
 * before packs have neither and are read as one output in `format`.
 */
export const JOBS_OUTPUTS_COLUMNS = `
      ALTER TABLE jobs ADD COLUMN formats_json TEXT;
      ALTER TABLE jobs ADD COLUMN outputs_json TEXT;
    `;

/** Migration 1 of the `server` component: tenants, API keys, usage, idempotency, assets, the webhook outbox. */
export function serverTablesV1(d: Dialect): string {
  return `
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
        created_at ${d.int64} NOT NULL,
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
        size_bytes ${d.int64} NOT NULL,
        sha256 TEXT NOT NULL,
        file TEXT NOT NULL,
        created_at ${d.int64} NOT NULL,
        expires_at ${d.int64} NOT NULL
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
        next_attempt_at ${d.int64},
        last_status INTEGER,
        last_error TEXT,
        created_at ${d.int64} NOT NULL,
        updated_at ${d.int64} NOT NULL
      );
      CREATE INDEX server_webhooks_due ON server_webhooks(state, next_attempt_at);
    `;
}

/**
 * The quota unit each render job took, until the job ends (docs/security.md: a job that fails on
 * the caller's input is not charged). The same text in both dialects. No longer written: the
 * charge is on the job since `JOBS_CHARGE_COLUMNS`, whose migration moved the open ones there.
 */
export const JOB_CHARGES_TABLE = `
      CREATE TABLE server_job_charges (
        job_id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        period TEXT NOT NULL,
        route TEXT NOT NULL
      );
    `;

/**
 * Migration 3 of the `server` component: Studio sign-in sessions (src/records/studio-sessions.ts,
 * docs/security.md "Studio sessions"). Only the token's hash is kept; times are milliseconds.
 */
export function studioSessionsTableV1(d: Dialect): string {
  return `
      CREATE TABLE server_studio_sessions (
        session_id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        key_id TEXT NOT NULL,
        tenant TEXT NOT NULL,
        created_at ${d.int64} NOT NULL,
        last_used_at ${d.int64} NOT NULL,
        idle_expires_at ${d.int64} NOT NULL,
        expires_at ${d.int64} NOT NULL
      );
      CREATE INDEX server_studio_sessions_key ON server_studio_sessions(key_id);
      CREATE INDEX server_studio_sessions_expiry ON server_studio_sessions(idle_expires_at);
    `;
}

/**
 * Migration 3 of the `jobs` component: the job carries its own quota charge (docs/api.md "Monthly
 * quota"). `units` were taken from `charge_key_id`'s quota of `charge_period` in the transaction
 * that wrote the row; `refunded_at` is set, in the transaction that ended the job, when they were
 * given back. A job made without an API key (local mode) has 0 units. The same text in both dialects.
 */
export const JOBS_CHARGE_COLUMNS = `
      ALTER TABLE jobs ADD COLUMN units INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN charge_key_id TEXT;
      ALTER TABLE jobs ADD COLUMN charge_period TEXT;
      ALTER TABLE jobs ADD COLUMN refunded_at TEXT;
      CREATE INDEX jobs_by_charge ON jobs (charge_key_id, charge_period);
    `;

/**
 * What the same migration does with the charges of jobs still open in `server_job_charges` (the
 * table that kept them before): each becomes the job's one unit, and the old rows go. Run only where
 * that table exists (a database whose server tables were created).
 */
export const MOVE_OPEN_JOB_CHARGES = `
      UPDATE jobs SET units = 1,
        charge_key_id = (SELECT c.key_id FROM server_job_charges c WHERE c.job_id = jobs.job_id),
        charge_period = (SELECT c.period FROM server_job_charges c WHERE c.job_id = jobs.job_id)
      WHERE job_id IN (SELECT job_id FROM server_job_charges);
      DELETE FROM server_job_charges;
    `;

/**
 * Migration 4 of the `server` component: share links (src/records/shares.ts, docs/api.md "Share
 * links"). Times are milliseconds.
 */
export function sharesTableV1(d: Dialect): string {
  return `
      CREATE TABLE server_shares (
        share_id TEXT PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,
        tenant TEXT NOT NULL,
        job_id TEXT NOT NULL,
        format TEXT,
        created_at ${d.int64} NOT NULL,
        expires_at ${d.int64} NOT NULL
      );
      CREATE INDEX server_shares_tenant ON server_shares(tenant, created_at);
      CREATE INDEX server_shares_expiry ON server_shares(expires_at);
    `;
}
