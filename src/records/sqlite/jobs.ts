import { join } from 'node:path';
import { JOB_STAGES, type JobList, type JobRecord, type JobStage, type JobState, type ListJobsOptions } from '../../core/types.js';
import type { ValidRenderRequest } from '../../render/types.js';
import { SQLITE_DIALECT } from '../dialect.js';
import { JOBS_CHARGE_COLUMNS, JOBS_OUTPUTS_COLUMNS, jobsTableV1, MOVE_OPEN_JOB_CHARGES } from '../tables.js';
import { migrate, openDatabase, type Db, type Migration } from './driver.js';
import { assertJobId } from '../../core/job-ids.js';
import { assertTransition } from '../../core/job-state.js';

import { MAX_RUNNING_PER_TENANT } from '../../core/job-limits.js';
import {
  chargeValues,
  checkListOptions,
  JOB_ROW_COLUMNS,
  newJobValues,
  refundsCharge,
  storedRequest,
  toJobRecord,
  type JobRecords,
  type JobRow,
} from '../job-rows.js';
import { liveAnswer, storeAnswer } from './idempotency.js';
import { returnUnits, takeUnits } from './usage.js';
import { registerWebhook } from './webhook-outbox.js';

/**
 * Versioned schema of the `jobs` component (src/records/sqlite/driver.ts applies what a data directory lacks).
 * Append new migrations; never edit one that has shipped.
 */
const MIGRATIONS: Migration[] = [
  (db) => {
    db.exec(jobsTableV1(SQLITE_DIALECT));
  },
  (db) => {
    db.exec(JOBS_OUTPUTS_COLUMNS);
  },
  (db) => {
    db.exec(JOBS_CHARGE_COLUMNS);
    const charges = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'server_job_charges'").get();
    if (charges !== undefined) db.exec(MOVE_OPEN_JOB_CHARGES);
  },
];

import type { CountUnit, JobPatch, NewJob, Owner } from '../job-rows.js';

const nowIso = (): string => new Date().toISOString();

/** The SQLite job store of one data directory (docs/jobs.md). Every state change goes through `transition`. */
export class JobStore {
  readonly jobsDir: string;

  private constructor(
    readonly db: Db,
    readonly dataDir: string,
    private readonly now: () => number,
  ) {
    this.jobsDir = join(dataDir, 'jobs');
  }

  /** `now`: the clock of stored idempotent answers (their 24 h), as the server's records have it. */
  static open(dataDir: string, options: { now?: () => number } = {}): JobStore {
    const db = openDatabase(dataDir);
    migrate(db, 'jobs', MIGRATIONS);
    return new JobStore(db, dataDir, options.now ?? Date.now);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** The job's own directory; the id is validated first so nothing else can be addressed. */
  jobDir(jobId: string): string {
    return join(this.jobsDir, assertJobId(jobId));
  }

  outputPath(jobId: string): string {
    return join(this.jobDir(jobId), 'output.mp4');
  }

  /**
   * One submission, one IMMEDIATE transaction (docs/operations.md "Exactly once"): the answer stored
   * for its `Idempotency-Key` (if any: that key's job is returned, nothing is written), the quota
   * charge, the row, its webhook outbox row and the stored answer. All of it commits, or none.
   */
  insert(job: NewJob): JobRow {
    const write = this.db.transaction((): JobRow => {
      const idem = job.idempotency;
      if (idem !== undefined) {
        const stored = liveAnswer(this.db, idem, this.now());
        if (stored !== null) return this.storedJob(stored.jobId);
      }
      if (job.charge !== undefined) takeUnits(this.db, job.charge);
      const now = nowIso();
      this.db
        .prepare(
          `INSERT INTO jobs (job_id, tenant, state, progress, attempts, created_at, updated_at, template, format, language,
             request_json, input_hash, allow_local_files, link_base, listing_json, warnings_json, metadata_json, formats_json,
             units, charge_key_id, charge_period)
           VALUES (?, ?, 'queued', 0, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?, ?)`,
        )
        .run(assertJobId(job.jobId), job.tenant, now, now, ...newJobValues(job), ...chargeValues(job));
      if (job.webhookUrl !== undefined && job.webhookUrl !== null)
        registerWebhook(this.db, job.jobId, job.tenant, job.webhookUrl, this.now());
      if (idem !== undefined) {
        storeAnswer(this.db, idem, { statusCode: 202, body: null, jobId: job.jobId }, this.now());
      }
      return this.row(job.jobId) as JobRow;
    });
    return write.immediate();
  }

  /** The job a stored render answer names. */
  private storedJob(jobId: string | null): JobRow {
    const row = jobId === null ? undefined : this.row(jobId);
    if (row === undefined) throw new Error(`the job ${String(jobId)} of a stored idempotent answer is missing from the store`);
    return row;
  }

  row(jobId: string): JobRow | undefined {
    return this.db.prepare(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE job_id = ?`).get(assertJobId(jobId)) as JobRow | undefined;
  }

  /** The validated request a job was submitted with. */
  requestOf(jobId: string): ValidRenderRequest {
    const row = this.db.prepare('SELECT request_json FROM jobs WHERE job_id = ?').get(assertJobId(jobId)) as
      { request_json: string } | undefined;
    if (row === undefined) throw new Error(`job ${jobId} vanished from the store`);
    return storedRequest(row.request_json);
  }

  /** The job record of docs/jobs.md as the API and the CLI print it. */
  toRecord(row: JobRow): JobRecord {
    return toJobRecord(row, this.jobsDir);
  }

  /** Newest first; `next_cursor` is the last id of the page (ids sort by creation time). */
  list(tenant: string, options: ListJobsOptions = {}): JobList {
    const { limit } = checkListOptions(options);
    const where = ['tenant = ?'];
    const params: (string | number)[] = [tenant];
    if (options.state !== undefined) {
      where.push('state = ?');
      params.push(options.state);
    }
    if (options.cursor !== undefined) {
      where.push('job_id < ?');
      params.push(options.cursor);
    }
    const rows = this.db
      .prepare(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE ${where.join(' AND ')} ORDER BY job_id DESC LIMIT ?`)
      .all(...params, limit + 1) as JobRow[];
    const page = rows.slice(0, limit);
    return { jobs: page.map((r) => this.toRecord(r)), next_cursor: rows.length > limit ? page[page.length - 1]!.job_id : null };
  }

  count(tenant: string | null, states: readonly JobState[], unit: CountUnit = 'jobs'): number {
    if (states.length === 0) return 0;
    const marks = states.map(() => '?').join(', ');
    // A pack's outputs are its formats; a row from before packs is one output.
    const what =
      unit === 'jobs' ? 'COUNT(*)' : 'COALESCE(SUM(CASE WHEN formats_json IS NULL THEN 1 ELSE json_array_length(formats_json) END), 0)';
    const sql = `SELECT ${what} AS n FROM jobs WHERE state IN (${marks})${tenant === null ? '' : ' AND tenant = ?'}`;
    const row = this.db.prepare(sql).get(...states, ...(tenant === null ? [] : [tenant])) as { n: number };
    return row.n;
  }

  /**
   * The one place a job changes state: read, check the edge (state.ts), write — in one IMMEDIATE
   * transaction, so two processes can never both move the same job. `guard` lets a caller give up
   * without error when the job is no longer what it expected (e.g. a worker finishing a job that
   * was canceled meanwhile); it returns null then.
   */
  transition(jobId: string, to: JobState, patch: JobPatch = {}, guard?: (row: JobRow) => boolean): JobRow | null {
    const run = this.db.transaction((): JobRow | null => {
      const row = this.row(jobId);
      if (row === undefined) return null;
      if (guard !== undefined && !guard(row)) return null;
      assertTransition(row.job_id, row.state, to);
      // The refund of a job's units is part of the transaction that ends it (docs/api.md "Monthly quota").
      const refund = refundsCharge(row, to, patch.error_code ?? row.error_code);
      if (refund) returnUnits(this.db, { charge_key_id: row.charge_key_id!, charge_period: row.charge_period!, units: row.units });
      this.write(row.job_id, { ...patch, state: to, ...(refund ? { refunded_at: nowIso() } : {}) });
      return this.row(row.job_id) as JobRow;
    });
    return run.immediate();
  }

  private write(jobId: string, columns: JobPatch & { state?: JobState; refunded_at?: string }): void {
    const entries = Object.entries({ ...columns, updated_at: nowIso() });
    const sets = entries.map(([column]) => `${column} = ?`).join(', ');
    this.db.prepare(`UPDATE jobs SET ${sets} WHERE job_id = ?`).run(...entries.map(([, v]) => v as string | number | null), jobId);
  }

  /**
   * Atomically takes a queued job (optionally only among `onlyIds`, never of `skipTenants`) for
   * `owner` — the oldest of the tenant with the fewest running (docs/scaling.md "Fairness"): the
   * IMMEDIATE transaction holds SQLite's write lock from the read to the update, so two processes
   * can never claim the same job.
   */
  claimNext(owner: Owner, leaseMs: number, onlyIds?: readonly string[], skipTenants: readonly string[] = []): JobRow | null {
    if (onlyIds !== undefined && onlyIds.length === 0) return null;
    const claim = this.db.transaction((): JobRow | null => {
      const filter =
        (onlyIds === undefined ? '' : ` AND job_id IN (${onlyIds.map(() => '?').join(', ')})`) +
        (skipTenants.length === 0 ? '' : ` AND tenant NOT IN (${skipTenants.map(() => '?').join(', ')})`);
      // A tenant with MAX_RUNNING_PER_TENANT jobs running gets no more until one ends; the
      // write lock held from this read to the update makes the count exact across processes.
      const next = this.db
        .prepare(
          `SELECT job_id, state FROM jobs q WHERE state = 'queued'${filter}
             AND (SELECT COUNT(*) FROM jobs r WHERE r.tenant = q.tenant AND r.state = 'running') < ?
           ORDER BY (SELECT COUNT(*) FROM jobs r WHERE r.tenant = q.tenant AND r.state = 'running'), job_id LIMIT 1`,
        )
        .get(...(onlyIds ?? []), ...skipTenants, MAX_RUNNING_PER_TENANT) as { job_id: string; state: JobState } | undefined;
      if (next === undefined) return null;
      assertTransition(next.job_id, next.state, 'running');
      const now = nowIso();
      this.db
        .prepare(
          `UPDATE jobs SET state = 'running', stage = 'fetching_assets', progress = 0, attempts = attempts + 1,
             owner = ?, owner_host = ?, owner_pid = ?, lease_expires_at = ?, started_at = ?, updated_at = ?
           WHERE job_id = ? AND state = 'queued'`,
        )
        .run(owner.id, owner.host, owner.pid, Date.now() + leaseMs, now, now, next.job_id);
      return this.row(next.job_id) as JobRow;
    });
    return claim.immediate();
  }

  /** Extends the lease of every job `owner` runs: the heartbeat that says "this worker is alive". */
  renewLeases(owner: Owner, leaseMs: number): void {
    this.db.prepare(`UPDATE jobs SET lease_expires_at = ? WHERE owner = ? AND state = 'running'`).run(Date.now() + leaseMs, owner.id);
  }

  /** Of `jobIds`, those still running under `owner`; the others were canceled or taken away. */
  stillOwned(owner: Owner, jobIds: readonly string[]): Set<string> {
    if (jobIds.length === 0) return new Set();
    const rows = this.db
      .prepare(`SELECT job_id FROM jobs WHERE owner = ? AND state = 'running' AND job_id IN (${jobIds.map(() => '?').join(', ')})`)
      .all(owner.id, ...jobIds) as { job_id: string }[];
    return new Set(rows.map((r) => r.job_id));
  }

  setProgress(jobId: string, owner: Owner, stage: JobStage, progress: number): void {
    if (!(JOB_STAGES as readonly string[]).includes(stage)) return;
    const clamped = Math.min(1, Math.max(0, Number.isFinite(progress) ? progress : 0));
    this.db
      .prepare(`UPDATE jobs SET stage = ?, progress = ?, updated_at = ? WHERE job_id = ? AND state = 'running' AND owner = ?`)
      .run(stage, Math.round(clamped * 1000) / 1000, nowIso(), jobId, owner.id);
  }

  /** Running jobs, for crash recovery. */
  runningJobs(): JobRow[] {
    return this.db.prepare(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE state = 'running'`).all() as JobRow[];
  }

  /** Finished jobs older than `cutoffIso` whose files are still on disk. */
  purgeable(cutoffIso: string): JobRow[] {
    return this.db
      .prepare(
        `SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE state IN ('succeeded', 'failed', 'canceled') AND expired_at IS NULL AND finished_at < ? ORDER BY job_id`,
      )
      .all(cutoffIso) as JobRow[];
  }

  /** Records that a finished job's files were removed; the record itself stays. */
  markExpired(jobId: string): void {
    this.db
      .prepare(`UPDATE jobs SET expired_at = ?, updated_at = ? WHERE job_id = ? AND state IN ('succeeded', 'failed', 'canceled')`)
      .run(nowIso(), nowIso(), assertJobId(jobId));
  }
}

/**
 * The SQLite job store as the asynchronous JobRecords every caller uses (the embedded default):
 * the same synchronous calls, wrapped in promises so a throw becomes a rejection exactly as with
 * PostgreSQL. SQLite answers in microseconds from this process; the wrapping costs nothing measurable.
 */
export function sqliteJobRecords(store: JobStore): JobRecords {
  const later = <T>(work: () => T): Promise<T> => new Promise((resolve) => resolve(work()));
  return {
    insert: (job) => later(() => store.insert(job)),
    row: (jobId) => later(() => store.row(jobId)),
    requestOf: (jobId) => later(() => store.requestOf(jobId)),
    toRecord: (row) => store.toRecord(row),
    list: (tenant, listOptions) => later(() => store.list(tenant, listOptions)),
    count: (tenant, states, unit) => later(() => store.count(tenant, states, unit)),
    transition: (jobId, to, patch, guard) => later(() => store.transition(jobId, to, patch, guard)),
    claimNext: (owner, leaseMs, onlyIds, skipTenants) => later(() => store.claimNext(owner, leaseMs, onlyIds, skipTenants)),
    renewLeases: (owner, leaseMs) => later(() => store.renewLeases(owner, leaseMs)),
    stillOwned: (owner, jobIds) => later(() => store.stillOwned(owner, jobIds)),
    setProgress: (jobId, owner, stage, progress) => later(() => store.setProgress(jobId, owner, stage, progress)),
    runningJobs: () => later(() => store.runningJobs()),
    purgeable: (cutoffIso) => later(() => store.purgeable(cutoffIso)),
    markExpired: (jobId) => later(() => store.markExpired(jobId)),
  };
}

/** How many schema versions the job store knows (`immoreel db status`). */
export const JOB_MIGRATION_COUNT = MIGRATIONS.length;
