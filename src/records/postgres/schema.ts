import { POSTGRES_DIALECT } from '../dialect.js';
import {
  JOB_CHARGES_TABLE,
  JOBS_CHARGE_COLUMNS,
  JOBS_OUTPUTS_COLUMNS,
  jobsTableV1,
  MOVE_OPEN_JOB_CHARGES,
  serverTablesV1,
  sharesTableV1,
  studioSessionsTableV1,
} from '../tables.js';
import type { Client } from './connection.js';

/** One schema change, applied once, in order, in its own transaction. Append; never edit one that shipped. */
export type PgMigration = (client: Client) => Promise<void>;

/**
 * The PostgreSQL schema: the tables of ../tables.ts, shared with SQLite, plus the rate-limit
 * buckets that only PostgreSQL keeps (several API nodes share them).
 */
const JOBS: PgMigration[] = [
  async (client) => {
    await client.query(jobsTableV1(POSTGRES_DIALECT));
  },
  // Video packs (docs/jobs.md "Outputs"), as in the SQLite schema.
  async (client) => {
    await client.query(JOBS_OUTPUTS_COLUMNS);
  },
  // The job carries its own quota charge (docs/api.md "Monthly quota"), as in the SQLite schema.
  async (client) => {
    await client.query(JOBS_CHARGE_COLUMNS);
    const { rows } = await client.query<{ t: string | null }>("SELECT to_regclass('server_job_charges')::text AS t");
    if (rows[0]?.t !== null && rows[0]?.t !== undefined) await client.query(MOVE_OPEN_JOB_CHARGES);
  },
];

const SERVER: PgMigration[] = [
  async (client) => {
    await client.query(serverTablesV1(POSTGRES_DIALECT));
    // PostgreSQL only: the SQLite backend keeps rate limits in the serving process's memory.
    await client.query(`
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
    await client.query(JOB_CHARGES_TABLE);
  },
  // Studio sign-in sessions (docs/security.md "Studio sessions"), as in the SQLite schema.
  async (client) => {
    await client.query(studioSessionsTableV1(POSTGRES_DIALECT));
  },
  // Share links (docs/api.md "Share links"), as in the SQLite schema.
  async (client) => {
    await client.query(sharesTableV1(POSTGRES_DIALECT));
  },
];

export const SCHEMA: Record<string, PgMigration[]> = { jobs: JOBS, server: SERVER };
